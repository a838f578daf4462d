#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks to build and test lockspan:
# the toolchain, the seven libraries (and the compressors the tests use), PostgreSQL 15 for the live sample
# generator, Python's psycopg2 that drives it, and clang with its libFuzzer
# and sanitizer runtimes (libclang-rt-dev) for `make fuzz`, and man-db with
# groff-base, with which ctest renders the installed man page (and zsh, which
# checks the zsh completion), and the locales samples/i18n.sh runs the
# server under (locale-gen), and poppler-utils, whose pdftotext reads the
# report printed to PDF by headless Chromium (browser_html). Run as root.
set -euo pipefail
pkgs=(build-essential cmake pkg-config
      libpcre2-dev libsqlite3-dev zlib1g-dev libcjson-dev
      libbz2-dev liblzma-dev libzstd-dev bzip2 xz-utils zstd zip
      postgresql-15 python3 python3-psycopg2 python3-psycopg gzip sqlite3 chromium
      man-db groff-base zsh locales poppler-utils
      clang libclang-rt-dev)
if [ "${1:-}" = --list ]; then
    printf '%s\n' "${pkgs[@]}"
    exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# samples/i18n.sh: lc_messages in every language PostgreSQL ships, and the
# legacy codesets of its WIN1251, KOI8R, EUC_JP and EUC_CN databases.
locales=("de_DE.UTF-8 UTF-8" "es_ES.UTF-8 UTF-8" "fr_FR.UTF-8 UTF-8" "it_IT.UTF-8 UTF-8"
         "ja_JP.UTF-8 UTF-8" "ka_GE.UTF-8 UTF-8" "ko_KR.UTF-8 UTF-8" "ru_RU.UTF-8 UTF-8"
         "sv_SE.UTF-8 UTF-8" "uk_UA.UTF-8 UTF-8" "zh_CN.UTF-8 UTF-8" "zh_TW.UTF-8 UTF-8"
         "tr_TR.UTF-8 UTF-8"
         "ru_RU.CP1251 CP1251" "ru_RU.KOI8-R KOI8-R" "ja_JP.EUC-JP EUC-JP" "zh_CN.GB2312 GB2312")
added=0
for l in "${locales[@]}"; do
    grep -qx "$l" /etc/locale.gen 2>/dev/null || { echo "$l" >>/etc/locale.gen; added=1; }
done
if [ "$added" = 1 ]; then
    locale-gen >/dev/null
fi
