#!/usr/bin/env bash
# Hidden lock waits sample (issue 11): a real PostgreSQL 15 with the DEFAULT
# deadlock_timeout (1s), 12 concurrent application workers queueing on two
# hot rows, truth from the client and a 5 ms pg_stat_activity sampler
# (samples/scenarios_hidden.py).
#
# Usage: samples/hidden.sh MODE OUTDIR
#   MODE durations  log_min_duration_statement = 0        (samples/hidden)
#        stmtall    log_statement = 'all', no durations    (samples/hidden-stmtall)
#        traces     no statement logging; OTLP/JSON Lines spans of every
#                   request and statement (traces.otlp.jsonl) (samples/hidden-traces)
#        failed     log_statement = 'all': statements that queued below
#                   deadlock_timeout, then failed (40001, lock_timeout, a
#                   deadlock victim) (samples/scenarios_hidden_failed.py,
#                   samples/hidden-failed)
#
# Env: LOCKSPAN_PGPORT (default 54371, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_PYTHON, LOCKSPAN_HIDDEN_SECONDS (default 30, traces 26), LOCKSPAN_SEED
#      (failed: LOCKSPAN_HIDDEN_ROUNDS, default 6, and the seed).
set -euo pipefail

if [[ $# -ne 2 || ! $1 =~ ^(durations|stmtall|traces|failed)$ ]]; then
    echo "usage: $0 durations|stmtall|traces|failed OUTDIR" >&2
    exit 2
fi
MODE=$1
OUTDIR=$2
PORT=${LOCKSPAN_PGPORT:-54371}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

pg_workdir lockspan-hidden
pg_initdb
settings=("log_line_prefix = '$PREFIX'" "deadlock_timeout = '1s'" "log_lock_waits = on")
case $MODE in
    durations) settings+=("log_min_duration_statement = 0" "log_statement = 'none'") ;;
    stmtall|failed) settings+=("log_min_duration_statement = -1" "log_statement = 'all'") ;;
    traces)    settings+=("log_min_duration_statement = -1" "log_statement = 'none'") ;;
esac
pg_settings "${settings[@]}"
pg_start
pg_createdb lockspan

echo "hidden.sh: running $MODE on 127.0.0.1:$PORT" >&2
if [[ $MODE == failed ]]; then
    "$PYTHON" "$HERE/scenarios_hidden_failed.py" --port "$PORT" --truth "$WORK/truth.json" \
        --set-name "hidden-$MODE" --prefix "$PREFIX" \
        --rounds "${LOCKSPAN_HIDDEN_ROUNDS:-6}" --seed "${LOCKSPAN_SEED:-34}"
else
    args=(--port "$PORT" --truth "$WORK/truth.json" --set-name "hidden-$MODE"
          --prefix "$PREFIX" --log-mode "$MODE"
          --seed "${LOCKSPAN_SEED:-11}")
    # The traces run is a little shorter: its spans file stays under 1 MB.
    if [[ $MODE == traces ]]; then seconds=26; else seconds=30; fi
    args+=(--duration "${LOCKSPAN_HIDDEN_SECONDS:-$seconds}")
    if [[ $MODE == traces ]]; then
        args+=(--traces "$WORK/traces.otlp.jsonl")
    fi
    "$PYTHON" "$HERE/scenarios_hidden.py" "${args[@]}"
fi

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUTDIR"
install -m 644 "$LOGDIR/postgresql.log" "$WORK/truth.json" "$OUTDIR/"
[[ $MODE != traces ]] || install -m 644 "$WORK/traces.otlp.jsonl" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR/prefix.txt"
ls -l "$OUTDIR" >&2
