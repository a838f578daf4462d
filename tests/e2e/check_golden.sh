#!/usr/bin/env bash
# Golden files: the Markdown and JSON reports of the bundled samples must
# not change unnoticed. Run from the project root with relative paths, so
# the reports do not depend on where the checkout lives.
# Usage: check_golden.sh LOCKSPAN PROJECT_DIR
# LOCKSPAN_UPDATE_GOLDEN=1 rewrites the golden files (review the diff!).
set -u
lockspan=$1
cd "$2" || exit 1
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for set in basic app; do
    for fmt in md json; do
        golden=tests/golden/$set.$fmt
        inputs=samples/$set/postgresql.log
        [ "$set" = app ] && inputs="samples/app/postgresql.log samples/app/traces.otlp.jsonl"
        # shellcheck disable=SC2086 # the input list is split on purpose
        if ! "$lockspan" analyze -q --db "$tmp/$set.db" --format "$fmt" \
                --generated-at 2026-12-02T00:00:00Z --title "lockspan sample: $set" \
                -o "$tmp/$set.$fmt" $inputs 2>/dev/null; then
            echo "FAIL: $set.$fmt: lockspan failed"
            failed=$((failed + 1))
            continue
        fi
        if [ "${LOCKSPAN_UPDATE_GOLDEN:-}" = 1 ]; then
            cp "$tmp/$set.$fmt" "$golden"
        fi
        if diff -u "$golden" "$tmp/$set.$fmt" >"$tmp/diff"; then
            passed=$((passed + 1))
        else
            echo "FAIL: $set.$fmt differs from $golden:"
            head -40 "$tmp/diff"
            failed=$((failed + 1))
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
