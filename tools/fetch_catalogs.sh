#!/usr/bin/env bash
# Fetch the gettext catalogs (postgres-NN.mo) of every PostgreSQL server
# package revision Debian's archive carries, without installing anything:
# a private apt sources list and state dir, `apt-get download` of each
# version `apt-cache madison` lists, `dpkg-deb -x` into OUT.
#
#   postgresql-13  Debian 11 bullseye (+ bullseye-security)
#   postgresql-15  Debian 12 bookworm (+ bookworm-updates, bookworm-security)
#   postgresql-17  Debian 13 trixie (+ trixie-security)
#   postgresql-18  sid
#
# Usage: tools/fetch_catalogs.sh [OUT]   (default /tmp/lockspan-catalogs)
# Leaves OUT/debs/*.deb, OUT/root/PKG_VERSION/usr/share/locale/... and
# OUT/catalogs.txt: "package version lang sha256 path" per .mo, the list
# tools/catalogs.txt commits (paths made relative to OUT/root).
# Then: tools/gen_messages_i18n.py --catalogs OUT > src/common/messages_i18n.c
# Needs apt-get, dpkg-deb, sha256sum and Debian's archive keyring; runs as
# any user (nothing outside OUT is written).
set -euo pipefail
OUT=${1:-/tmp/lockspan-catalogs}
MIRROR=${LOCKSPAN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${LOCKSPAN_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PACKAGES=(postgresql-13 postgresql-15 postgresql-17 postgresql-18)

mkdir -p "$OUT"/{apt/lists/partial,apt/cache/archives/partial,apt/etc,debs,root}
OUT=$(cd "$OUT" && pwd)
cat >"$OUT/apt/etc/sources.list" <<SRC
deb [signed-by=$KEYRING] $MIRROR bullseye main
deb [signed-by=$KEYRING] $SECURITY bullseye-security main
deb [signed-by=$KEYRING] $MIRROR bookworm main
deb [signed-by=$KEYRING] $MIRROR bookworm-updates main
deb [signed-by=$KEYRING] $SECURITY bookworm-security main
deb [signed-by=$KEYRING] $MIRROR trixie main
deb [signed-by=$KEYRING] $SECURITY trixie-security main
deb [signed-by=$KEYRING] $MIRROR sid main
SRC
: >"$OUT/apt/etc/status"
APT=(-o "Dir::Etc::sourcelist=$OUT/apt/etc/sources.list"
     -o "Dir::Etc::sourceparts=-"
     -o "Dir::State::Lists=$OUT/apt/lists"
     -o "Dir::State::status=$OUT/apt/etc/status"
     -o "Dir::Cache=$OUT/apt/cache"
     -o "APT::Architecture=amd64"
     -o "Acquire::Check-Valid-Until=false"
     -o "APT::Sandbox::User=$(id -un)"
     -o "Debug::NoLocking=1")

apt-get "${APT[@]}" -q update
cd "$OUT/debs"
for pkg in "${PACKAGES[@]}"; do
    # every version the archive has (each suite's candidate differs)
    apt-cache "${APT[@]}" madison "$pkg" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
        sort -u | while read -r ver; do
            apt-get "${APT[@]}" -q download "$pkg=$ver"
        done
done

: >"$OUT/catalogs.txt"
for deb in "$OUT"/debs/postgresql-1[0-9]_*.deb; do
    pkg=$(dpkg-deb -f "$deb" Package)
    ver=$(dpkg-deb -f "$deb" Version)
    dir="$OUT/root/${pkg}_$ver"
    rm -rf "$dir"
    mkdir -p "$dir"
    dpkg-deb -x "$deb" "$dir"
    (cd "$OUT/root" && find "${pkg}_$ver" -name 'postgres-*.mo' | sort) | while read -r mo; do
        lang=$(basename "$(dirname "$(dirname "$mo")")")
        sum=$(sha256sum "$OUT/root/$mo" | cut -d' ' -f1)
        echo "$pkg $ver $lang $sum $mo" >>"$OUT/catalogs.txt"
    done
done
echo "fetch_catalogs: $(wc -l <"$OUT/catalogs.txt") catalogs in $OUT/catalogs.txt" >&2
