# samples/chroot.sh — sourced by the samples that run PostgreSQL 17 or 18
# in a Debian chroot made with debootstrap (pg18.sh, ddl-queue-chroot.sh,
# blind-pool.sh): commands in the chroot, the file systems the server
# needs mounted there, and the server stopped by its postmaster's pid.
#
# The caller sets ROOT (the chroot), PGBIN (the server's bin directory as
# seen in the chroot) and WORK (the run's directory inside the chroot,
# empty until made), and calls umount_fs and stop_server from its exit
# trap. Run as root (chroot, mount).

# In the chroot, as root / as postgres.
in_root() { chroot "$ROOT" "$@"; }
as_pg() { chroot "$ROOT" runuser -u postgres -- "$@"; }

# True if the process exists and is not a zombie.
alive() {
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [[ -n $state && $state != Z && $state != X ]]
}

# proc and a tmpfs on dev/shm in the chroot; umount_fs unmounts those
# this script mounted, last first.
MOUNTED=()
mount_fs() {
    if ! mountpoint -q "$ROOT/proc"; then
        mount -t proc proc "$ROOT/proc" && MOUNTED+=("$ROOT/proc")
    fi
    mkdir -p "$ROOT/dev/shm"
    if ! mountpoint -q "$ROOT/dev/shm"; then
        mount -t tmpfs tmpfs "$ROOT/dev/shm" && MOUNTED+=("$ROOT/dev/shm")
    fi
}
umount_fs() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[i]}" || true; done
    MOUNTED=()
}

# Stop the server of $WORK/data: pg_ctl's fast stop, then up to 5 s for
# its postmaster to go, then KILL.
WORK=
stop_server() {
    local pm
    [[ -n $WORK && -f $ROOT$WORK/data/postmaster.pid ]] || return 0
    pm=$(head -n 1 "$ROOT$WORK/data/postmaster.pid")
    as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    for _ in $(seq 50); do alive "$pm" || break; sleep 0.1; done
    if alive "$pm"; then
        echo "${0##*/}: postmaster $pm still alive, killing it" >&2
        kill -KILL "$pm" || true
    fi
}
