#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks to build and test lockspan:
# the toolchain, the four libraries, PostgreSQL 15 for the live sample
# generator, Python's psycopg2 that drives it, and clang with its libFuzzer
# and sanitizer runtimes (libclang-rt-dev) for `make fuzz`, and man-db with
# groff-base, with which ctest renders the installed man page (and zsh, which
# checks the zsh completion). Run as root.
set -euo pipefail
pkgs=(build-essential cmake pkg-config
      libpcre2-dev libsqlite3-dev zlib1g-dev libcjson-dev
      postgresql-15 python3 python3-psycopg2 python3-psycopg gzip sqlite3 chromium
      man-db groff-base zsh
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
