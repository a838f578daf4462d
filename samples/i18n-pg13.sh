#!/usr/bin/env bash
# The i18n scenario set (samples/scenarios_i18n.py) on a real PostgreSQL 13
# server: Debian 11's postgresql-13 package, not installed but extracted
# (dpkg-deb -x) with the bullseye libraries it needs that Debian 12 lacks
# (libssl1.1, libldap-2.4-2, libicu67), run from that directory with
# LD_LIBRARY_PATH. Its catalogs are 13.x's: zh_CN's 2019 one (`详细信息:  `),
# it's deadlock DETAIL without the final period. PostgreSQL 13 has no
# jsonlog: stderr and csvlog only. The scenario set has its two extra
# scenarios (statement timeout, NOWAIT: LOCKSPAN_I18N_EXTRA=1).
#
# Usage: samples/i18n-pg13.sh OUTDIR [LANG...]   (default: C zh_CN it_IT)
# Writes OUTDIR/pg13-DIR/{postgresql.log.gz,postgresql.csv.gz,prefix.txt,
# truth.json,version.txt} (DIR as samples/i18n.sh names it).
# Needs tools/fetch_catalogs.sh's directory (LOCKSPAN_CATALOGS, default
# /tmp/lockspan-catalogs: its apt state and postgresql-13 .debs; run that
# first) and Debian 12's postgresql-client-15 (createdb). Network: Debian's
# archive, for the three libraries, once.
# Env: as samples/generate.sh (LOCKSPAN_PGPORT ...); LOCKSPAN_PG13_VERSION
# (default: the newest postgresql-13 .deb fetched).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
shift
langs=("$@")
((${#langs[@]})) || langs=(C zh_CN it_IT)
CAT=${LOCKSPAN_CATALOGS:-/tmp/lockspan-catalogs}
LIBS=(libssl1.1 libldap-2.4-2 libicu67)
APT=(-o "Dir::Etc::sourcelist=$CAT/apt/etc/sources.list"
     -o "Dir::Etc::sourceparts=-"
     -o "Dir::State::Lists=$CAT/apt/lists"
     -o "Dir::State::status=$CAT/apt/etc/status"
     -o "Dir::Cache=$CAT/apt/cache"
     -o "APT::Architecture=amd64"
     -o "Acquire::Check-Valid-Until=false"
     -o "APT::Sandbox::User=$(id -un)"
     -o "Debug::NoLocking=1")

deb=$(ls "$CAT"/debs/postgresql-13_"${LOCKSPAN_PG13_VERSION:-}"*.deb 2>/dev/null | sort -V | tail -1)
[[ -f $deb ]] || { echo "i18n-pg13.sh: no postgresql-13 .deb in $CAT/debs (tools/fetch_catalogs.sh)" >&2; exit 1; }
ver=$(dpkg-deb -f "$deb" Version)
ROOT=$CAT/pg13-run/$ver
if [[ ! -x $ROOT/bin/postgres ]]; then
    rm -rf "$ROOT"
    mkdir -p "$ROOT/bin"
    dpkg-deb -x "$deb" "$ROOT"
    (cd "$CAT/debs" && for l in "${LIBS[@]}"; do
        # bullseye's newest of each (the security suite's when there is one)
        v=$(apt-cache "${APT[@]}" madison "$l" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
            sort -V | tail -1)
        ls "${l}_${v//:/%3a}"_*.deb >/dev/null 2>&1 || apt-get "${APT[@]}" -q download "$l=$v"
        dpkg-deb -x "${l}_${v//:/%3a}"_*.deb "$ROOT"
    done)
    # createdb from the system's client (the server package has none); the
    # server binaries stay where they are so that the share and locale
    # directories are found relative to them
    for b in "$ROOT"/usr/lib/postgresql/13/bin/*; do ln -s "$b" "$ROOT/bin/"; done
    ln -s /usr/lib/postgresql/15/bin/createdb "$ROOT/bin/createdb"
    chmod -R a+rX "$ROOT"
fi
export LD_LIBRARY_PATH=$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ldd "$ROOT/usr/lib/postgresql/13/bin/postgres" | grep -q 'not found'; then
    ldd "$ROOT/usr/lib/postgresql/13/bin/postgres" | grep 'not found' >&2
    exit 1
fi

for l in "${langs[@]}"; do
    case $l in
    C) loc=C dir=C ;;
    zh_*) loc=$l.UTF-8 dir=$l ;;
    *) loc=$l.UTF-8 dir=${l%%_*} ;;
    esac
    tmp=$(mktemp -d)
    LOCKSPAN_PGBIN=$ROOT/bin LOCKSPAN_LOG_DESTINATIONS=stderr,csvlog LOCKSPAN_I18N_EXTRA=1 \
        LOCKSPAN_SCENARIOS=i18n LOCKSPAN_LC_MESSAGES=$loc \
        "$HERE/generate.sh" "$tmp"
    mkdir -p "$OUT/pg13-$dir"
    gzip -9 -n -c "$tmp/postgresql.log" >"$OUT/pg13-$dir/postgresql.log.gz"
    gzip -9 -n -c "$tmp/postgresql.csv" >"$OUT/pg13-$dir/postgresql.csv.gz"
    cp "$tmp/prefix.txt" "$tmp/truth.json" "$OUT/pg13-$dir/"
    echo "postgresql-13 $ver" >"$OUT/pg13-$dir/version.txt"
    rm -rf "$tmp"
done
