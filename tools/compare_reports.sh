#!/usr/bin/env bash
# compare_reports.sh — the JSON reports of two lockspan builds, side by side,
# on every bundled sample set: a refactoring of the analysis must give the
# same answers (issue 33), and any difference must be a named bug fix.
#
# Usage: tools/compare_reports.sh OLD_LOCKSPAN NEW_LOCKSPAN [OUTDIR]
#
# Run from anywhere; the samples are read from this checkout, by paths
# relative to its root, so the reports do not depend on where it lives.
# Each case is analyzed into a fresh store by both binaries with the same
# arguments (--top 1000, a fixed --generated-at) and the two JSON reports
# are compared byte for byte; a difference is shown (diff -u, first lines)
# and counted. OUTDIR (default: a temporary directory, removed) keeps the
# reports, OLD/NAME.json and NEW/NAME.json.
#
# The cases: every sample set as the e2e checks read it (a log with its
# prefix.txt, its csvlog and its jsonlog alone, a whole directory, a log
# with each trace export; samples/ddl-queue-pg17 and -pg18 among them); every
# samples/prefixes, samples/timezones and samples/i18n log; the excerpts of
# real logs under tests/e2e (a crowd of 160 clients, pgbench); and, for each
# of those written with %m, a copy with its milliseconds cut off, read with
# %t: whole-second times take other branches of the analysis (the log's
# order decides where times tie). Exit status: 0 when every report is the
# same, 1 otherwise, 2 on a usage error.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_LOCKSPAN NEW_LOCKSPAN [OUTDIR]" >&2
    exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 3 ]; then
    out=$3
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
out=$(realpath "$out")
mkdir -p "$out/OLD" "$out/NEW" "$out/in"
cd "$root" || exit 2

CROWD_PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
same=0 differ=0 failed=0

# run_case NAME PREFIX INPUT...: PREFIX "-" infers it.
run_case() {
    local name=$1 prefix=$2 bin side rc
    shift 2
    for side in OLD NEW; do
        [ $side = OLD ] && bin=$old || bin=$new
        rm -f "$out/$side/$name.db" "$out/$side/$name.json"
        if [ "$prefix" = - ]; then
            "$bin" analyze -q --db "$out/$side/$name.db" --format json --top 1000 \
                --generated-at 2026-12-02T00:00:00Z -o "$out/$side/$name.json" "$@" \
                >"$out/$side/$name.err" 2>&1
        else
            "$bin" analyze -q --db "$out/$side/$name.db" --prefix "$prefix" --format json \
                --top 1000 --generated-at 2026-12-02T00:00:00Z -o "$out/$side/$name.json" "$@" \
                >"$out/$side/$name.err" 2>&1
        fi
        rc=$?
        echo "$rc" >"$out/$side/$name.rc"
        rm -f "$out/$side/$name.db"
    done
    if ! cmp -s "$out/OLD/$name.rc" "$out/NEW/$name.rc"; then
        echo "DIFFER: $name: exit $(cat "$out/OLD/$name.rc") before, $(cat "$out/NEW/$name.rc") now"
        differ=$((differ + 1))
    elif [ ! -s "$out/NEW/$name.json" ]; then
        echo "FAILED: $name: no report (exit $(cat "$out/NEW/$name.rc"))"
        head -5 "$out/NEW/$name.err"
        failed=$((failed + 1))
    elif cmp -s "$out/OLD/$name.json" "$out/NEW/$name.json"; then
        same=$((same + 1))
    else
        echo "DIFFER: $name:"
        diff -u "$out/OLD/$name.json" "$out/NEW/$name.json" | head -30
        differ=$((differ + 1))
    fi
}

# A copy of a %m log with whole-second times, for the %t cases.
whole_seconds() {
    local src=$1 dst=$2
    if [ "${src%.gz}" != "$src" ]; then
        gzip -dc "$src"
    else
        cat "$src"
    fi | sed -E 's/^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{3}/\1/' >"$dst"
}

# set_cases DIR: a sample set as the e2e checks read it.
set_cases() {
    local dir=$1 name prefix log f
    name=$(basename "$dir")
    [ -f "$dir/prefix.txt" ] && prefix=$(cat "$dir/prefix.txt") || prefix=-
    for log in "$dir/postgresql.log" "$dir/postgresql.log.gz" "$dir/postgresql.syslog"; do
        [ -f "$log" ] || continue
        run_case "$name-log" "$prefix" "$log"
        for f in "$dir"/traces.otlp.jsonl "$dir"/traces.jaeger.json "$dir"/traces.zipkin.json; do
            [ -f "$f" ] && run_case "$name-log-$(basename "$f" | cut -d. -f2)" "$prefix" "$log" "$f"
        done
        case "$log:$prefix" in
        *.syslog:*) ;; # syslog's own times come first on the line
        *:*%m*)
            whole_seconds "$log" "$out/in/$name-t.log"
            run_case "$name-log-t" "${prefix//%m/%t}" "$out/in/$name-t.log"
            ;;
        esac
    done
    [ -f "$dir/postgresql.csv" ] && run_case "$name-csv" - "$dir/postgresql.csv"
    [ -f "$dir/postgresql.csv.gz" ] && run_case "$name-csv" - "$dir/postgresql.csv.gz"
    [ -f "$dir/postgresql.json" ] && run_case "$name-json" - "$dir/postgresql.json"
    [ -f "$dir/postgresql.json.gz" ] && run_case "$name-json" - "$dir/postgresql.json.gz"
    case "$name" in
    app | app-skew) ;; # traces in three formats: each with the log above
    *) run_case "$name-dir" "$prefix" "$dir" ;;
    esac
}

for dir in samples/*/; do
    dir=${dir%/}
    case $(basename "$dir") in
    i18n)
        for d in "$dir"/*/; do set_cases "${d%/}"; done
        ;;
    prefixes | timezones)
        for log in "$dir"/*.log; do
            run_case "$(basename "$dir")-$(basename "$log" .log)" "$(cat "${log%.log}.prefix")" "$log"
        done
        ;;
    prefix-change)
        run_case prefix-change - "$dir/1.log"
        ;;
    *)
        set_cases "$dir"
        ;;
    esac
done

for log in tests/e2e/excerpts/c160-*.log tests/e2e/excerpts/*.log.gz tests/e2e/data/pgbench-*.log*; do
    name=$(basename "$log")
    name=${name%%.*}
    if [ "$name" = c160-t-same-second ]; then
        run_case "$name" '%t [%p]: user=%u,db=%d,app=%a ' "$log"
        continue
    fi
    run_case "$name" "$CROWD_PREFIX" "$log"
    whole_seconds "$log" "$out/in/$name-t.log"
    run_case "$name-t" "${CROWD_PREFIX//%m/%t}" "$out/in/$name-t.log"
done

echo "$same same, $differ differ, $failed failed"
[ "$differ" -eq 0 ] && [ "$failed" -eq 0 ]
