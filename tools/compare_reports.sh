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
# The cases (698): every sample set as the e2e checks read it: each of its
# logs (stderr or syslog, csvlog, jsonlog) alone and with each of its trace
# exports (traces.*: OTLP JSONL plain and .gz, Jaeger, Zipkin), and the
# whole directory (samples/app and app-skew have none: three exports);
# samples/ddl-queue-pg17 and -pg18 among them, and each language of
# samples/pg17 and samples/pg18 (named pg17.C, pg18.de, ...); every
# samples/prefixes, samples/timezones and samples/i18n log; the excerpts of
# real logs under tests/e2e (a crowd of 160 clients, pgbench). For each
# stderr log written with %m, a copy with its milliseconds cut off (the
# regex the e2e checks use, e.g. check_hold_overlaps.py, check_rankings.py),
# read with %t, alone and with each trace export of its set (NAME-log-t,
# NAME-log-t-otlp, ...): whole-second times take other branches of the
# analysis (the log's order decides where times tie; with traces,
# txspans.c's whole-second statements). Logs already %t (app-seconds,
# blind-pool) are read with their traces as they are. The two builds run
# each case side by side (two processes). 3 min 56 s for the 698 on the
# shared 2-core machine (load 7-9).
#
# Output: a DIFFER or FAILED line per case that differs (the exit statuses,
# or the reports) or gives no report with both builds, then "N same, N
# differ, N failed". Exit status: 0 when every report is the same, 1 when
# any differs or fails, 2 on a usage error.
#
# tools/compare_reports.sh --list prints the cases instead, one a line,
# fields separated by tabs: NAME, PREFIX ("-": inferred), then each
# input, relative to the checkout's root, a whole-second copy written
# "t:" and the %m log it is cut from. The e2e checks that sweep the same
# cases read them from here (tests/e2e/check_hold_overlaps.py).
set -u
list=0
if [ "${1:-}" = --list ]; then
    list=1
elif [ $# -lt 2 ]; then
    echo "usage: $0 OLD_LOCKSPAN NEW_LOCKSPAN [OUTDIR] | $0 --list" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $list = 1 ]; then
    out=/nonexistent # never written: whole_seconds only names its source
else
    old=$(realpath "$1")
    new=$(realpath "$2")
    if [ $# -ge 3 ]; then
        out=$3
        mkdir -p "$out"
    else
        out=$(mktemp -d)
        trap 'rm -rf "$out"' EXIT
    fi
    out=$(realpath "$out")
    mkdir -p "$out/OLD" "$out/NEW" "$out/in"
fi
cd "$root" || exit 2
declare -A CUT_FROM # --list: a whole-second copy -> the log it is cut from

CROWD_PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
same=0 differ=0 failed=0

# run_case NAME PREFIX INPUT...: PREFIX "-" infers it.
run_case() {
    local name=$1 prefix=$2 bin side f
    shift 2
    if [ $list = 1 ]; then
        printf '%s\t%s' "$name" "$prefix"
        for f in "$@"; do
            if [ -n "${CUT_FROM[$f]:-}" ]; then
                printf '\tt:%s' "${CUT_FROM[$f]}"
            else
                printf '\t%s' "$f"
            fi
        done
        printf '\n'
        return
    fi
    for side in OLD NEW; do
        [ $side = OLD ] && bin=$old || bin=$new
        rm -f "$out/$side/$name.db" "$out/$side/$name.json"
        (
            if [ "$prefix" = - ]; then
                "$bin" analyze -q --db "$out/$side/$name.db" --format json --top 1000 \
                    --generated-at 2026-12-02T00:00:00Z -o "$out/$side/$name.json" "$@" \
                    >"$out/$side/$name.err" 2>&1
            else
                "$bin" analyze -q --db "$out/$side/$name.db" --prefix "$prefix" --format json \
                    --top 1000 --generated-at 2026-12-02T00:00:00Z -o "$out/$side/$name.json" \
                    "$@" >"$out/$side/$name.err" 2>&1
            fi
            rc=$?
            echo "$rc" >"$out/$side/$name.rc"
            rm -f "$out/$side/$name.db"
        ) &
    done
    wait
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
    if [ $list = 1 ]; then
        CUT_FROM[$dst]=$src
        return
    fi
    if [ "${src%.gz}" != "$src" ]; then
        gzip -dc "$src"
    else
        cat "$src"
    fi | sed -E 's/^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{3}/\1/' >"$dst"
}

# TRACES: the sample's trace exports (traces.*), set by set_cases; tag F
# names one in a case: its format, "-gz" when compressed (otlp, otlp-gz).
tag() {
    local f
    f=$(basename "$1")
    f=${f#traces.}
    case $f in
    *.gz) echo "${f%%.*}-gz" ;;
    *) echo "${f%%.*}" ;;
    esac
}

# with_traces NAME PREFIX LOG: LOG alone, then with each of TRACES.
with_traces() {
    local name=$1 prefix=$2 log=$3 f
    run_case "$name" "$prefix" "$log"
    for f in "${TRACES[@]}"; do
        run_case "$name-$(tag "$f")" "$prefix" "$log" "$f"
    done
}

# set_cases DIR [NAME]: a sample set as the e2e checks read it, each log
# alone and with each of its trace exports.
set_cases() {
    local dir=$1 name=${2:-$(basename "$1")} prefix log f
    [ -f "$dir/prefix.txt" ] && prefix=$(cat "$dir/prefix.txt") || prefix=-
    TRACES=()
    for f in "$dir"/traces.*; do
        [ -f "$f" ] && TRACES+=("$f")
    done
    for log in "$dir/postgresql.log" "$dir/postgresql.log.gz" "$dir/postgresql.syslog"; do
        [ -f "$log" ] || continue
        with_traces "$name-log" "$prefix" "$log"
        case "$log:$prefix" in
        *.syslog:*) ;; # syslog's own times come first on the line
        *:*%m*)
            whole_seconds "$log" "$out/in/$name-t.log"
            with_traces "$name-log-t" "${prefix//%m/%t}" "$out/in/$name-t.log"
            ;;
        esac
    done
    for f in postgresql.csv postgresql.csv.gz postgresql.json postgresql.json.gz; do
        [ -f "$dir/$f" ] && with_traces "$name-$(echo "$f" | cut -d. -f2)" - "$dir/$f"
    done
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
    pg17 | pg18) # a set per language (samples/pg18.sh), no log of their own
        for d in "$dir"/*/; do
            d=${d%/}
            set_cases "$d" "$(basename "$dir").$(basename "$d")"
        done
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

[ $list = 1 ] && exit 0
echo "$same same, $differ differ, $failed failed"
[ "$differ" -eq 0 ] && [ "$failed" -eq 0 ]
