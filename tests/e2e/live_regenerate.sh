#!/usr/bin/env bash
# Regenerate a sample set with a live PostgreSQL server (samples/generate.sh),
# check the generator's own truth against the log it produced, then analyze
# it with lockspan and compare the report with that truth.
# Usage: live_regenerate.sh LOCKSPAN SAMPLES_DIR PYTHON3
set -euo pipefail
lockspan=$1 samples=$2 py=${3:-/usr/bin/python3}
out=$(mktemp -d /tmp/lockspan-live.XXXXXX)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
# Another port than a developer's own generator runs, so both can coexist.
LOCKSPAN_PGPORT=${LOCKSPAN_PGPORT:-54339} bash "$samples/generate.sh" "$out/set" >"$out/gen.log" 2>&1 || {
    echo "sample generator failed:"; cat "$out/gen.log"; exit 1; }
"$py" "$samples/check_truth.py" "$out/set"
"$py" "$(dirname "$0")/check_report.py" "$lockspan" "$out/set"
