#!/usr/bin/env bash
# The i18n scenario set on a real PostgreSQL 18 (Debian sid's postgresql-18)
# in a chroot: 18 needs a newer glibc than Debian 12's. With
# log_lock_failures = on (a NOWAIT failure logs "process N could not obtain
# ShareLock on transaction M" and its holder) and log_connections = 'all'
# ("connection authenticated", "connection ready"). Its zh_CN catalog is the
# 2019 one again (`详细信息:  `).
#
# Usage: samples/i18n-pg18.sh CHROOT OUTDIR [LANG...]  (default: C zh_CN)
# With LOCKSPAN_I18N_MAJOR=17 it runs the chroot's postgresql-17 instead
# (Debian trixie's: CHROOT made with `trixie` and postgresql-17), without
# the two settings 17 does not have, into OUTDIR/pg17-DIR/.
# CHROOT is made when missing (as root, network: Debian's archive):
#   debootstrap --variant=minbase --include=locales,python3-psycopg2,
#   postgresql-18,procps sid CHROOT
# A chroot without python3-psycopg2 (samples/pg18.sh's, which drives its
# server from this machine) gets it with apt inside (network: Debian's
# archive, once).
# Writes OUTDIR/pg18-DIR/ as samples/i18n.sh does with
# LOCKSPAN_I18N_RELEASE (stderr, csvlog, jsonlog, version.txt; the two extra
# scenarios). proc, /dev and a copy of samples/ are mounted or put in the
# chroot for the run and removed after.
# Env: LOCKSPAN_PGPORT (default 54329), as samples/generate.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CH=$1
OUT=$2
shift 2
langs=("$@")
((${#langs[@]})) || langs=(C zh_CN)
MAJOR=${LOCKSPAN_I18N_MAJOR:-18}
extra=""
[[ $MAJOR -ge 18 ]] && extra="log_lock_failures = on;log_connections = 'all'"
# names of its own in the chroot: another run may use the same chroot
SAMPLES_IN=lockspan-samples-$$
OUT_IN=lockspan-out-$$
[[ $(id -u) -eq 0 ]] || { echo "i18n-pg18.sh: run as root (chroot)" >&2; exit 1; }
if [[ ! -x $CH/usr/lib/postgresql/$MAJOR/bin/postgres ]]; then
    [[ $MAJOR == 18 ]] || { echo "i18n-pg18.sh: no postgresql-$MAJOR in $CH" >&2; exit 1; }
    debootstrap --variant=minbase --include=locales,python3-psycopg2,postgresql-18,procps \
        sid "$CH" http://deb.debian.org/debian
fi
if ! chroot "$CH" python3 -c 'import psycopg2' 2>/dev/null; then
    APT=(apt-get -q -o Acquire::Check-Valid-Until=false)
    chroot "$CH" env DEBIAN_FRONTEND=noninteractive "${APT[@]}" update
    chroot "$CH" env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y \
        --no-install-recommends python3-psycopg2
fi
# locale-gen makes every listed locale again (minutes): only for a new one
gen=0
for l in "${langs[@]}"; do
    [[ $l == C ]] || grep -qx "$l.UTF-8 UTF-8" "$CH/etc/locale.gen" && continue
    echo "$l.UTF-8 UTF-8" >>"$CH/etc/locale.gen"
    gen=1
done
((gen == 0)) || chroot "$CH" locale-gen >/dev/null

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || true; done
    rm -rf "${CH:?}/$SAMPLES_IN" "${CH:?}/$OUT_IN"
}
trap cleanup EXIT
mkdir -p "$CH/proc" "$CH/dev"
mount -t proc proc "$CH/proc" && mounted+=("$CH/proc")
mount --bind /dev "$CH/dev" && mounted+=("$CH/dev")
mkdir -p "$CH/dev/shm"
rm -rf "${CH:?}/$SAMPLES_IN" "${CH:?}/$OUT_IN"
cp -r "$HERE" "$CH/$SAMPLES_IN"
chroot "$CH" env LOCKSPAN_PGPORT="${LOCKSPAN_PGPORT:-54329}" \
    LOCKSPAN_PGBIN=/usr/lib/postgresql/$MAJOR/bin LOCKSPAN_I18N_RELEASE=pg$MAJOR \
    LOCKSPAN_EXTRA_SETTINGS="$extra" \
    bash "/$SAMPLES_IN/i18n.sh" "/$OUT_IN" "${langs[@]}"
mkdir -p "$OUT"
cp -r "$CH/$OUT_IN"/* "$OUT/"
