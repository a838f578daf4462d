#!/usr/bin/env bash
# Run the libFuzzer targets of a fuzz build, one after the other, each for a
# time (default 60 s) or a number of executions; print the executions of
# each and fail if any target crashes, leaks, hangs or runs out of memory.
#
#   tests/fuzz/run.sh [-b BUILD] [-t SECONDS] [-n RUNS] [-m MAXLEN] [TARGET...]
#
#   -b BUILD    fuzz build directory (default build-fuzz; `make fuzz` makes it)
#   -t SECONDS  time per target (default 60, or $LOCKSPAN_FUZZ_SECONDS)
#   -n RUNS     stop a target after RUNS executions instead (the time still caps)
#   -m MAXLEN   longest input libFuzzer makes (default: the largest seed, 8 KiB)
#   TARGET      names without "fuzz_" (default: every fuzz_* in BUILD/tests/fuzz)
#
# Each target mutates its own corpus BUILD/fuzz-corpus/NAME, seeded from
# BUILD/fuzz-seeds/NAME (cut from samples/ at build time) and the committed
# regression inputs tests/fuzz/regress/NAME. A crashing input is written to
# BUILD/fuzz-artifacts/NAME/ and libFuzzer's report is in BUILD/fuzz-logs/NAME.log.
# Targets run under nice, one at a time: the build machine is shared.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=build-fuzz
seconds="${LOCKSPAN_FUZZ_SECONDS:-60}"
runs=""
maxlen=""
while getopts "b:t:n:m:h" opt; do
    case "$opt" in
    b) build="$OPTARG" ;;
    t) seconds="$OPTARG" ;;
    n) runs="$OPTARG" ;;
    m) maxlen="$OPTARG" ;;
    *) sed -n '2,19p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bin="$build/tests/fuzz"
if [ ! -d "$bin" ]; then
    echo "run.sh: no fuzz targets in $bin; build with: make fuzz-build (CC=clang, -DLOCKSPAN_FUZZ=ON)" >&2
    exit 2
fi
if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for f in "$bin"/fuzz_*; do
        [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')")
    done
fi
# Fill at most 256 bytes of each allocation with garbage (ASan's default
# is 4 KiB): PCRE2's JIT allocates a lot per prefix, and memset dominated.
export ASAN_OPTIONS="${ASAN_OPTIONS:-max_malloc_fill_size=256}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export TZ=UTC

failed=0
printf '%-14s %12s %8s %9s  %s\n' target executions seconds exec/s result
for t in "${targets[@]}"; do
    exe="$bin/fuzz_$t"
    [ -x "$exe" ] || { echo "run.sh: no target $exe" >&2; failed=1; continue; }
    corpus="$build/fuzz-corpus/$t"
    mkdir -p "$corpus" "$build/fuzz-artifacts/$t" "$build/fuzz-logs"
    dirs=("$corpus")
    [ -d "$build/fuzz-seeds/$t" ] && dirs+=("$build/fuzz-seeds/$t")
    [ -d "$here/regress/$t" ] && dirs+=("$here/regress/$t")
    opts=(-max_total_time="$seconds" -print_final_stats=1 -close_fd_mask=2 -timeout=60
          -rss_limit_mb=2560 -artifact_prefix="$build/fuzz-artifacts/$t/")
    [ -n "$runs" ] && opts+=(-runs="$runs")
    [ -n "$maxlen" ] && opts+=(-max_len="$maxlen")
    [ -f "$here/$t.dict" ] && opts+=(-dict="$here/$t.dict")
    log="$build/fuzz-logs/$t.log"
    start=$(date +%s)
    rc=0
    nice -n 10 "$exe" "${opts[@]}" "${dirs[@]}" >"$log" 2>&1 || rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=${execs:-0}
    skipped=$(grep -c "^fuzz_[a-z0-9_]*: input skipped" "$log" || true)
    if [ "$rc" -eq 0 ]; then
        result=ok
        # inputs the machine could not run (its shared disk full), said
        [ "$skipped" -gt 0 ] && result="ok ($skipped inputs skipped: the machine's disk)"
    else
        result="FAILED (exit $rc; see $log, inputs in $build/fuzz-artifacts/$t/)"
        failed=1
    fi
    printf '%-14s %12s %8s %9s  %s\n' "$t" "$execs" "$secs" \
        "$(( execs / (secs > 0 ? secs : 1) ))" "$result"
    if [ "$rc" -ne 0 ]; then
        # What the CI log must carry, the build directory being gone after
        # it: the target's own message, the sanitizer's report with its
        # stack, and each crashing input (gzip, base64: `base64 -d | gunzip`).
        grep -E "^fuzz_[a-z0-9_]*: |ERROR: |runtime error|SUMMARY|^ *#[0-9]+ 0x" "$log" |
            grep -v "in __sanitizer\|in fuzzer::\|libc.so\|in _start" | head -40 >&2 ||
            tail -5 "$log" >&2
        for a in "$build/fuzz-artifacts/$t"/*; do
            [ -f "$a" ] && [ "$(stat -c %s "$a")" -le 65536 ] || continue
            echo "input $(basename "$a") ($(stat -c %s "$a") bytes), gzip | base64:" >&2
            gzip -9nc "$a" | base64 -w 120 >&2
        done
    fi
done
exit $failed
