#!/usr/bin/env bash
# The basic lock scenarios (samples/scenarios.py) from a real server under
# lc_messages = C and each language PostgreSQL 15 ships a catalog for, plus
# one Russian run in a WIN1251 database with ru_RU.CP1251 messages.
#
# Usage: samples/i18n.sh OUTDIR [LANG...]   (default: C and every language)
# Writes OUTDIR/LANG/{postgresql.log.gz,postgresql.csv.gz,prefix.txt,truth.json}.
# The locales must exist: add ll_CC.UTF-8 (and ru_RU.CP1251) to
# /etc/locale.gen and run locale-gen.
# Env: as samples/generate.sh (LOCKSPAN_PGPORT ...).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
shift
langs=("$@")
if ((${#langs[@]} == 0)); then
    langs=(C de_DE es_ES fr_FR it_IT ja_JP ka_GE ko_KR ru_RU sv_SE uk_UA zh_CN zh_TW ru_RU.CP1251)
fi
for l in "${langs[@]}"; do
    case $l in
    C) loc=C enc= dir=C ;;
    *.CP1251) loc=$l enc=WIN1251 dir=ru-win1251 ;;
    *) loc=$l.UTF-8 enc= dir=${l%%_*} ;;
    esac
    [[ $l == zh_* ]] && dir=$l
    tmp=$(mktemp -d)
    LOCKSPAN_LC_MESSAGES=$loc LOCKSPAN_DB_ENCODING=$enc "$HERE/generate.sh" "$tmp"
    mkdir -p "$OUT/$dir"
    gzip -9 -c "$tmp/postgresql.log" >"$OUT/$dir/postgresql.log.gz"
    gzip -9 -c "$tmp/postgresql.csv" >"$OUT/$dir/postgresql.csv.gz"
    cp "$tmp/prefix.txt" "$tmp/truth.json" "$OUT/$dir/"
    rm -rf "$tmp"
done
