#!/usr/bin/env bash
# Peak memory of analyze with many spans (issue 37: "10 M spans under
# 64 MiB"). A benchmark, not a test: 10 M spans are a 4.6-5 GB export and
# take tens of minutes on a shared machine; tests/e2e/check_span_memory.py
# is the ctest at 300 k.
#
#   bench/spans.sh [N] [unmatched|matched]
#
# unmatched (default): bench/gen_spans.py N spans over 60 s from the first
#   seconds of samples/app/postgresql.log (a real server's log), backend
#   pids no session had: the export of the issue's measurement; analyzed
#   beside that log.
# matched: the spans belong to the sessions of samples/hidden-traces'
#   log (gen_spans.py --log): each becomes a statement of its session.
#
# Env: LOCKSPAN_BIN (default build/lockspan), LOCKSPAN_SPANS_DIR (default
# /tmp/lockspan-spans; the export, the store and the report, deleted at the
# end unless LOCKSPAN_SPANS_KEEP=1), LOCKSPAN_SPANS_LIMIT_KIB (65536).
# Prints the export's size and the time it took, then analyze's wall, user
# and system time and peak RSS (/usr/bin/time -v), and PASS or FAIL against
# the limit; exits 1 on FAIL or when analyze fails.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-10000000}
mode=${2:-unmatched}
bin=${LOCKSPAN_BIN:-$here/build/lockspan}
dir=${LOCKSPAN_SPANS_DIR:-/tmp/lockspan-spans}
limit=${LOCKSPAN_SPANS_LIMIT_KIB:-65536}
T0_NS=1796214989000000000 # 2026-12-02 12:36:29 UTC, samples/app's first second
SECONDS_SPREAD=60

case $mode in
    unmatched) log=$here/samples/app/postgresql.log; prefix=$(cat "$here/samples/app/prefix.txt") ;;
    matched) log=$here/samples/hidden-traces/postgresql.log
             prefix=$(cat "$here/samples/hidden-traces/prefix.txt") ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
esac
[[ -x $bin ]] || { echo "spans.sh: no $bin (make BUILD=build, or LOCKSPAN_BIN)" >&2; exit 2; }
mkdir -p "$dir"
spans=$dir/spans-$mode-$n.jsonl
cleanup() {
    [[ ${LOCKSPAN_SPANS_KEEP:-0} == 1 ]] || rm -f "$spans" "$dir/store-$n.db" "$dir/report-$n.json"
}
trap cleanup EXIT

t0=$(date +%s)
if [[ $mode == matched ]]; then
    python3 "$here/bench/gen_spans.py" "$n" --log "$log" "$spans"
else
    python3 "$here/bench/gen_spans.py" "$n" "$T0_NS" "$SECONDS_SPREAD" "$spans"
fi
echo "spans.sh: $n spans ($mode), $(stat -c %s "$spans") bytes, generated in $(($(date +%s) - t0)) s"

rm -f "$dir/store-$n.db"
rc=0
/usr/bin/time -v -o "$dir/time-$mode-$n.txt" "$bin" analyze -q --db "$dir/store-$n.db" \
    -o "$dir/report-$n.json" --prefix "$prefix" "$log" "$spans" || rc=$?
grep -E "Elapsed|User time|System time|Maximum resident" "$dir/time-$mode-$n.txt" | sed 's/^\t*/spans.sh: /'
peak=$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/time-$mode-$n.txt")
if [[ $rc -ne 0 ]]; then
    echo "spans.sh: analyze exited $rc: FAIL"
    exit 1
fi
if ((peak <= limit)); then
    echo "spans.sh: peak $peak KiB <= $limit KiB: PASS"
else
    echo "spans.sh: peak $peak KiB > $limit KiB: FAIL"
    exit 1
fi
