#!/usr/bin/env bash
# The basic lock scenarios from a real server under lc_messages = C and each
# language PostgreSQL 15 ships a catalog for, plus runs in legacy codesets:
# Russian in a WIN1251 and in a KOI8R database, Japanese in an EUC_JP one,
# Chinese in an EUC_CN one. A backend writes its messages in its database's
# encoding, so these logs hold lines in that codeset (and, from backends of
# UTF8 databases such as createdb's, UTF-8). SJIS and GBK cannot be a
# database encoding (PostgreSQL: client-only encodings), so no server writes
# them; EUC_CN is GBK's subset.
#
# The i18n scenario set (samples/scenarios_i18n.py) writes the same lines in
# the same order in every run: the runs differ by their messages' language,
# times and pids only (tests/e2e/check_i18n.py).
#
# Usage: samples/i18n.sh OUTDIR [LANG...]   (default: C and every language)
# Writes OUTDIR/DIR/{postgresql.log.gz,postgresql.csv.gz,prefix.txt,truth.json},
# and postgresql.json.gz when the server wrote a jsonlog (PostgreSQL 15 on:
# LOCKSPAN_LOG_DESTINATIONS, default stderr,csvlog,jsonlog).
# With LOCKSPAN_I18N_RELEASE=pgN.N (e.g. pg15.18: a set of the installed
# server's own catalog revision, compared with its own C run) DIR is
# pgN.N-DIR, and the server's version (version.txt) is kept too, and the
# scenario set has its two extra scenarios (statement timeout, NOWAIT:
# scenarios_i18n.py).
# The locales must exist (.ci/install-deps.sh generates them: ll_CC.UTF-8,
# ru_RU.CP1251, ru_RU.KOI8-R, ja_JP.EUC-JP, zh_CN.GB2312).
# Env: as samples/generate.sh (LOCKSPAN_PGPORT ...).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
shift
langs=("$@")
if ((${#langs[@]} == 0)); then
    langs=(C de_DE es_ES fr_FR it_IT ja_JP ka_GE ko_KR ru_RU sv_SE uk_UA zh_CN zh_TW
           ru_RU.CP1251 ru_RU.KOI8-R ja_JP.EUC-JP zh_CN.GB2312)
fi
for l in "${langs[@]}"; do
    # LANG -> lc_messages, database encoding, sample directory
    case $l in
    C) loc=C enc= dir=C ;;
    ru_RU.CP1251) loc=$l enc=WIN1251 dir=ru-win1251 ;;
    ru_RU.KOI8-R) loc=$l enc=KOI8R dir=ru-koi8r ;;
    ja_JP.EUC-JP) loc=$l enc=EUC_JP dir=ja-eucjp ;;
    zh_CN.GB2312) loc=$l enc=EUC_CN dir=zh_CN-euccn ;;
    zh_* | pt_*) loc=$l.UTF-8 enc= dir=$l ;;
    *) loc=$l.UTF-8 enc= dir=${l%%_*} ;;
    esac
    tmp=$(mktemp -d)
    LOCKSPAN_I18N_EXTRA=${LOCKSPAN_I18N_RELEASE:+1} \
    LOCKSPAN_SCENARIOS=i18n LOCKSPAN_LC_MESSAGES=$loc LOCKSPAN_DB_ENCODING=$enc \
        "$HERE/generate.sh" "$tmp"
    if [[ -n ${LOCKSPAN_I18N_RELEASE:-} ]]; then
        dir=$LOCKSPAN_I18N_RELEASE-$dir
        mkdir -p "$OUT/$dir"
        "${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}/postgres" --version >"$OUT/$dir/version.txt"
    fi
    mkdir -p "$OUT/$dir"
    gzip -9 -n -c "$tmp/postgresql.log" >"$OUT/$dir/postgresql.log.gz"
    gzip -9 -n -c "$tmp/postgresql.csv" >"$OUT/$dir/postgresql.csv.gz"
    if [[ -f $tmp/postgresql.json ]]; then
        gzip -9 -n -c "$tmp/postgresql.json" >"$OUT/$dir/postgresql.json.gz"
    fi
    cp "$tmp/prefix.txt" "$tmp/truth.json" "$OUT/$dir/"
    rm -rf "$tmp"
done
