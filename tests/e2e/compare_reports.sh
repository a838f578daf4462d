#!/usr/bin/env bash
# compare_reports.sh — the report refactoring harness (issue 33): two builds
# of lockspan must write the same HTML, Markdown and JSON, byte for byte,
# from the same store, on every bundled sample set and under the report
# options that change what the renderers write (--full, --tz, --group-by,
# filters, --trace-id, a small --top and --max-waits).
#
# Each set is analyzed once, by the BASE build, into a store; both builds
# then run `lockspan report` on that one store, so a difference can only
# come from reports/ (the model and the renderers), never from ingest or
# correlation.
#
# Usage: compare_reports.sh BASE_LOCKSPAN NEW_LOCKSPAN [WORKDIR]
# Run from anywhere; WORKDIR (default: a temporary directory, removed
# unless KEEP=1) holds base/ and new/ with the reports. Exit 0 when every
# report is identical, 1 otherwise (the first lines of each diff shown).
# Not registered in ctest: it needs two builds.
set -u
base=$1
new=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-$(mktemp -d)}
[ -n "${3:-}" ] || [ "${KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/new" "$work/db"
export TZ=UTC
cd "$root/samples" || exit 1

same=0 differ=0 failed=0

# analyze NAME PREFIX_OR_EMPTY INPUT... : the store $work/db/NAME.db
analyze() {
    local name=$1 prefix=$2
    shift 2
    local given=()
    [ -n "$prefix" ] && given=(--prefix "$prefix")
    rm -f "$work/db/$name.db"
    if ! "$base" analyze -q --db "$work/db/$name.db" "${given[@]}" \
            -o "$work/db/$name.analyze.json" "$@" 2>"$work/db/$name.err"; then
        echo "FAIL: analyze $name: $(head -3 "$work/db/$name.err")"
        failed=$((failed + 1))
        return 1
    fi
}

# report NAME VARIANT FLAG... : both builds' three reports, compared
report() {
    local name=$1 variant=$2 b
    shift 2
    for b in base new; do
        local bin=$base
        [ "$b" = new ] && bin=$new
        local out="$work/$b/$name.$variant"
        if ! "$bin" report -q --db "$work/db/$name.db" --generated-at 2026-12-02T00:00:00Z \
                -o "$out.html" -o "$out.md" -o "$out.json" "$@" 2>"$out.err"; then
            # A report the base refuses must be refused the same way.
            echo "exit $?" >>"$out.err"
        fi
    done
    local ext
    for ext in html md json err; do
        local a="$work/base/$name.$variant.$ext" c="$work/new/$name.$variant.$ext"
        if cmp -s "$a" "$c"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "DIFF: $name.$variant.$ext"
            diff -u "$a" "$c" | head -${DIFF_LINES:-20}
        fi
    done
}

# Every variant of the reports on one store.
variants() {
    local name=$1
    report "$name" default
    report "$name" full --full
    report "$name" top1 --top 1 --max-waits 3
    report "$name" paris --tz Europe/Paris
    report "$name" route --group-by route
    report "$name" stmt --group-by statement
}

prefix_of() { cat "$1"; }

for set in basic correlation correlation-stmtall hidden hidden-stmtall hidden-traces \
        hostile rds realistic app app-skew; do
    inputs=("$set/postgresql.log")
    for t in "$set"/traces.otlp.jsonl; do [ -f "$t" ] && inputs+=("$t"); done
    analyze "$set" "$(prefix_of "$set/prefix.txt")" "${inputs[@]}" || continue
    variants "$set"
done
# The other input formats of the same runs.
for set in basic correlation realistic; do
    analyze "$set-csv" "" "$set/postgresql.csv" && report "$set-csv" default
done
analyze basic-json "" basic/postgresql.json && report basic-json default
for set in syslog syslog-noprefix syslog-noseq; do
    analyze "$set" "$(prefix_of "$set/prefix.txt")" "$set/postgresql.syslog" &&
        report "$set" default
done
analyze rotation "$(prefix_of rotation/prefix.txt)" rotation/*.log rotation/*.log.gz &&
    report rotation default
for lang in i18n/*/; do
    lang=${lang%/}
    name=i18n-${lang#i18n/}
    analyze "$name" "$(prefix_of "$lang/prefix.txt")" "$lang/postgresql.log.gz" &&
        report "$name" default
done
for p in prefixes/*.log; do
    n=$(basename "$p" .log)
    analyze "prefixes-$n" "$(prefix_of "prefixes/$n.prefix")" "$p" && report "prefixes-$n" default
done
for p in timezones/*.log; do
    n=$(basename "$p" .log)
    analyze "timezones-$n" "$(prefix_of "timezones/$n.prefix")" "$p" &&
        report "timezones-$n" default "--tz" "$(cat "timezones/$n.zone")"
done
# Two days in one store (episodes), and the filters on it.
analyze days "$(prefix_of app/prefix.txt)" app/postgresql.log app/traces.otlp.jsonl \
    app-skew/postgresql.log app-skew/traces.otlp.jsonl && {
    variants days
    report days since --since 2026-12-03T00:00:00Z
    report days until --until 2026-12-02T23:59:59Z
}
# Filters and one request shown by its trace id.
report realistic relation --relation accounts
report realistic database --database nosuchdb
report app codepath --code-path checkout.pay_order
# the first 40 traces (some queued, some not) and one id no span has
tid=$(grep -o '"traceId":"[0-9a-f]\{32\}"' hidden-traces/traces.otlp.jsonl |
      sed 's/.*:"\(.*\)"/\1/' | awk '!seen[$0]++' | head -40 | tr '\n' ' ')
tid="$tid 0123456789abcdef0123456789abcdef"
# shellcheck disable=SC2086 # one --trace-id per id
report hidden-traces traceid $(for t in $tid; do printf -- '--trace-id %s ' "$t"; done)
report days traceid $(for t in $tid; do printf -- '--trace-id %s ' "$t"; done)

echo "$same identical, $differ different, $failed failed (reports in $work)"
[ "$differ" -eq 0 ] && [ "$failed" -eq 0 ]
