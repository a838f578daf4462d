#!/usr/bin/env bash
# lockspan throughput / memory benchmark (a benchmark, NOT a test).
#
# Builds a large PostgreSQL stderr log by replaying samples/basic/postgresql.log
# many times (pids, session ids, xids and timestamps shifted per copy), then
# times lockspan ingest (plain and .gz), gzip -dc, pgbadger and lockspan analyze
# with /usr/bin/time -v and prints a comparison table plus PASS/FAIL targets.
#
# Environment (all optional):
#   LOCKSPAN_BENCH_MB         size of the generated log in MiB (default 1024)
#   LOCKSPAN_BENCH_DIR        work dir (default /tmp/lockspan-bench)
#   LOCKSPAN_BIN              lockspan binary (default <repo>/build/lockspan)
#   LOCKSPAN_BENCH_PGB_MB     pgbadger runs on the first N MiB of the log
#                             (default 100; 0 = whole log)
#   LOCKSPAN_BENCH_NO_INSTALL 1 = never apt-get install time/pgbadger
#   LOCKSPAN_BENCH_STRICT     1 = exit 1 if a target FAILs (default: exit 0)
#   LOCKSPAN_BENCH_GZIP_LEVEL gzip level for the .gz input (default 6 = gzip's
#                             own default, what logrotate produces)
#
# See bench/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAMPLE="$ROOT/samples/basic/postgresql.log"
PREFIX="$(cat "$ROOT/samples/basic/prefix.txt")"
MB="${LOCKSPAN_BENCH_MB:-1024}"
WORK="${LOCKSPAN_BENCH_DIR:-/tmp/lockspan-bench}"
BIN="${LOCKSPAN_BIN:-$ROOT/build/lockspan}"
PGB_MB="${LOCKSPAN_BENCH_PGB_MB:-100}"
GZ_LEVEL="${LOCKSPAN_BENCH_GZIP_LEVEL:-6}"
PY=/usr/bin/python3
GEN_VERSION=1

[[ "$MB" =~ ^[0-9]+$ && "$MB" -gt 0 ]] || { echo "LOCKSPAN_BENCH_MB must be a positive integer (MiB)" >&2; exit 2; }
[[ "$PGB_MB" =~ ^[0-9]+$ ]] || { echo "LOCKSPAN_BENCH_PGB_MB must be an integer (MiB)" >&2; exit 2; }
[[ -x "$BIN" ]] || { echo "lockspan binary not found: $BIN (build: cmake -S . -B build && cmake --build build -j2)" >&2; exit 2; }
[[ -r "$SAMPLE" ]] || { echo "sample log not found: $SAMPLE" >&2; exit 2; }
[[ -x "$PY" ]] || PY="$(command -v python3)"

log() { printf '[bench] %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
install_missing() {
    local pkgs=()
    [[ -x /usr/bin/time ]] || pkgs+=(time)
    command -v pgbadger >/dev/null 2>&1 || pkgs+=(pgbadger)
    ((${#pkgs[@]})) || return 0
    if [[ "${LOCKSPAN_BENCH_NO_INSTALL:-0}" != 1 && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        log "installing: ${pkgs[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y "${pkgs[@]}" >/dev/null 2>&1 ||
            { apt-get update >/dev/null 2>&1 && apt-get install -y "${pkgs[@]}" >/dev/null 2>&1; } ||
            log "apt-get install ${pkgs[*]} failed; continuing"
    fi
}
install_missing
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time (GNU time) is required: apt-get install time" >&2; exit 2; }
HAVE_PGB=0
command -v pgbadger >/dev/null 2>&1 && HAVE_PGB=1

mkdir -p "$WORK"
LOGF="$WORK/bench-${MB}M.log"
GZF="$LOGF.gz"
STAMP="$LOGF.stamp"
SAMPLE_SUM="$(cksum <"$SAMPLE" | cut -d' ' -f1,2)"
WANT_STAMP="gen=$GEN_VERSION mb=$MB sample=$SAMPLE_SUM"
GZ_STAMP="$GZF.stamp"
WANT_GZ_STAMP="$WANT_STAMP gzip=-$GZ_LEVEL"

# ---------------------------------------------------------------- generator
# Reads the sample once, turns it into a %-template with placeholders for
# every timestamp second, pid (prefix [%p], session id, "process N",
# "Process holding the lock: N", "Wait queue: ...", "blocked by process N"),
# session start time and xid (%x, "transaction N"), then writes copy k with
#   time += k * (sample span in whole seconds + 1)  -> strictly increasing
#   pid  += k * (max pid - min pid + 1)             -> sessions distinct
#   xid  += k * (max xid - min xid + 1)
# until the output reaches the requested size (whole copies only).
generate() {
    "$PY" - "$SAMPLE" "$MB" <<'PYEOF'
import calendar, re, sys, time

sample_path, mb = sys.argv[1], int(sys.argv[2])
target = mb * 1048576
text = open(sample_path, encoding="utf-8").read()

TS = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
HEAD = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3} \S+ \[(\d+)\] ", re.M)
SID = re.compile(r"(?<= )([0-9a-f]{6,})\.([0-9a-f]+)(?= \d+ [0-9/]* (\d+) [0-9A-Z]{5} )")

pids = sorted({int(m.group(2)) for m in HEAD.finditer(text)})
secs = sorted({calendar.timegm(time.strptime(s, "%Y-%m-%d %H:%M:%S")) for s in TS.findall(text)})
line_secs = [calendar.timegm(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) for m in HEAD.finditer(text)]
pidset = set(pids)
xids = sorted({int(m.group(3)) for m in SID.finditer(text)} |
              {int(x) for x in re.findall(r"transaction (\d+)", text)})
xids = [x for x in xids if x != 0]
starts = sorted({int(m.group(1), 16) for m in SID.finditer(text)})

time_shift = max(line_secs) - min(line_secs) + 1
pid_stride = max(pids) - min(pids) + 1
xid_stride = (max(xids) - min(xids) + 1) if xids else 0

tpl = text.replace("%", "%%")

def pid_key(n):
    return "%%(P%d)s" % n if n in pidset else str(n)

# order matters: timestamps first (they contain no pids), then structured fields
tpl = TS.sub(lambda m: "%%(T%d)s" % calendar.timegm(time.strptime(m.group(0), "%Y-%m-%d %H:%M:%S")), tpl)
tpl = re.sub(r"(?m)^(%\(T\d+\)s\.\d{3} \S+ \[)(\d+)\]",
             lambda m: m.group(1) + pid_key(int(m.group(2))) + "]", tpl)
tpl = re.sub(r"(?<= )([0-9a-f]{6,})\.([0-9a-f]+)(?= \d+ [0-9/]* )",
             lambda m: "%%(S%d)s.%%(H%d)s" % (int(m.group(1), 16), int(m.group(2), 16)), tpl)
# %x column: "<lnum> <vxid> <xid> <sqlstate> "
tpl = re.sub(r"(?<=\.%\(H)(\d+\)s \d+ [0-9/]* )(\d+)(?= [0-9A-Z]{5} )",
             lambda m: m.group(1) + ("%%(X%s)s" % m.group(2) if m.group(2) != "0" else "0"), tpl)
tpl = re.sub(r"(?<=transaction )(\d+)", lambda m: "%%(X%s)s" % m.group(1), tpl)
tpl = re.sub(r"(?<=[Pp]rocess )(\d+)", lambda m: pid_key(int(m.group(1))), tpl)
tpl = re.sub(r"((?:Process|Processes) holding the lock: |Wait queue: )([\d, ]+)",
             lambda m: m.group(1) + re.sub(r"\d+", lambda n: pid_key(int(n.group(0))), m.group(2)), tpl)

sids_pids = sorted({int(m.group(2), 16) for m in SID.finditer(text)})

out = sys.stdout.buffer
written = 0
k = 0
while written < target:
    d = {}
    ts = k * time_shift
    for s in secs:
        d["T%d" % s] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s + ts))
    ps = k * pid_stride
    for p in pids:
        d["P%d" % p] = str(p + ps)
    for p in sids_pids:
        d["H%d" % p] = "%x" % (p + ps)
    for s in starts:
        d["S%d" % s] = "%x" % (s + ts)
    xs = k * xid_stride
    for x in xids:
        d["X%d" % x] = str(x + xs)
    chunk = (tpl % d).encode("utf-8")
    out.write(chunk)
    written += len(chunk)
    k += 1
out.flush()
sys.stderr.write("[bench] generated %d copies, %d bytes (time shift %ds, pid stride %d, xid stride %d per copy)\n"
                 % (k, written, time_shift, pid_stride, xid_stride))
PYEOF
}

if [[ -s "$LOGF" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT_STAMP" ]]; then
    log "reusing $LOGF"
else
    rm -f "$LOGF" "$GZF" "$STAMP" "$GZ_STAMP"
    log "generating ${MB} MiB log -> $LOGF (+ gzip -$GZ_LEVEL -> $GZF)"
    t0=$(date +%s.%N)
    # generator and gzip run concurrently (2 cores)
    generate | tee "$LOGF" | gzip "-$GZ_LEVEL" >"$GZF.tmp"
    mv "$GZF.tmp" "$GZF"
    echo "$WANT_STAMP" >"$STAMP"
    echo "$WANT_GZ_STAMP" >"$GZ_STAMP"
    log "generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi
if [[ ! -s "$GZF" || ! -f "$GZ_STAMP" || "$(cat "$GZ_STAMP")" != "$WANT_GZ_STAMP" ]]; then
    log "compressing $LOGF (gzip -$GZ_LEVEL)"
    gzip "-$GZ_LEVEL" -c "$LOGF" >"$GZF.tmp" && mv "$GZF.tmp" "$GZF"
    echo "$WANT_GZ_STAMP" >"$GZ_STAMP"
fi

LOG_BYTES=$(stat -c %s "$LOGF")
GZ_BYTES=$(stat -c %s "$GZF")

# pgbadger slice: first PGB_MB MiB, cut back to a whole line
PGB_IN="$LOGF"
PGB_BYTES=$LOG_BYTES
PGB_NOTE="whole log"
if ((HAVE_PGB)) && ((PGB_MB > 0)) && ((PGB_MB * 1048576 < LOG_BYTES)); then
    PGB_IN="$WORK/bench-${MB}M.first${PGB_MB}M.log"
    if [[ ! -s "$PGB_IN" || "$PGB_IN" -ot "$LOGF" ]]; then
        head -c $((PGB_MB * 1048576)) "$LOGF" | sed '$d' >"$PGB_IN"
    fi
    PGB_BYTES=$(stat -c %s "$PGB_IN")
    PGB_NOTE="first ${PGB_MB} MiB slice"
fi

# ---------------------------------------------------------------- measuring
# run NAME CMD... : time CMD with /usr/bin/time -v, stdout to /dev/null,
# sets SECS[NAME], RSS[NAME] (KiB), RC[NAME]
declare -A SECS RSS RC
run() {
    local name=$1; shift
    local tf="$WORK/time.$name.txt" ef="$WORK/stderr.$name.txt" rc=0
    log "running $name:$(printf ' %q' "$@")"
    /usr/bin/time -v -o "$tf" "$@" >/dev/null 2>"$ef" || rc=$?
    RC[$name]=$rc
    if ((rc != 0)); then
        log "$name exited with status $rc; stderr tail:"
        tail -n 5 "$ef" >&2 || true
    fi
    SECS[$name]=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, a, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + a[i]
        printf "%.2f", s }' "$tf")
    RSS[$name]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
    log "  -> ${SECS[$name]} s, peak RSS $((RSS[$name] / 1024)) MiB"
}

fresh_db() { rm -f "$1" "$1-wal" "$1-shm" "$1-journal"; }

# warm the page cache so every tool reads from memory
cat "$LOGF" "$GZF" >/dev/null
[[ "$PGB_IN" != "$LOGF" ]] && cat "$PGB_IN" >/dev/null

DB_PLAIN="$WORK/ingest-plain.db"
DB_GZ="$WORK/ingest-gz.db"
DB_AN="$WORK/analyze.db"

fresh_db "$DB_PLAIN"
run ingest_plain "$BIN" ingest -q --db "$DB_PLAIN" --prefix "$PREFIX" "$LOGF"
DB_PLAIN_BYTES=$(stat -c %s "$DB_PLAIN" 2>/dev/null || echo 0)
fresh_db "$DB_PLAIN"

fresh_db "$DB_GZ"
run ingest_gz "$BIN" ingest -q --db "$DB_GZ" --prefix "$PREFIX" "$GZF"
fresh_db "$DB_GZ"

run gzip_dc gzip -dc "$GZF"

if ((HAVE_PGB)); then
    run pgbadger pgbadger --prefix "$PREFIX" -j 1 -o "$WORK/pgbadger.html" -q "$PGB_IN"
else
    echo "pgbadger: not installed"
fi

fresh_db "$DB_AN"
run analyze "$BIN" analyze -q --db "$DB_AN" --prefix "$PREFIX" -o "$WORK/report.md" "$LOGF"
fresh_db "$DB_AN"

# ---------------------------------------------------------------- report
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", b / 1048576 / s; else print "inf" }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
rssmib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

LOG_MB=$(mib "$LOG_BYTES"); GZ_MB=$(mib "$GZ_BYTES"); PGB_IN_MB=$(mib "$PGB_BYTES")
R_PLAIN=$(rate "$LOG_BYTES" "${SECS[ingest_plain]}")
R_GZ_U=$(rate "$LOG_BYTES" "${SECS[ingest_gz]}")
R_GZ_C=$(rate "$GZ_BYTES" "${SECS[ingest_gz]}")
R_GZIP=$(rate "$LOG_BYTES" "${SECS[gzip_dc]}")
R_AN=$(rate "$LOG_BYTES" "${SECS[analyze]}")

echo
echo "lockspan benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "lockspan: $("$BIN" version 2>/dev/null || echo '?')   log: $LOGF ($LOG_MB MiB), gz: gzip -$GZ_LEVEL ($GZ_MB MiB, ratio $(div "$LOG_BYTES" "$GZ_BYTES"):1)"
echo "MB = MiB (2^20 bytes); seconds = wall clock from /usr/bin/time -v; RSS = Maximum resident set size"
echo
fmt='%-26s | %-30s | %8s | %8s | %8s | %13s\n'
printf "$fmt" "tool" "input" "MB" "seconds" "MB/s" "peak RSS MiB"
printf '%s\n' "---------------------------+--------------------------------+----------+----------+----------+--------------"
printf "$fmt" "lockspan ingest" "plain log" "$LOG_MB" "${SECS[ingest_plain]}" "$R_PLAIN" "$(rssmib "${RSS[ingest_plain]}")"
printf "$fmt" "lockspan ingest" ".gz (MB/s on uncompressed)" "$LOG_MB" "${SECS[ingest_gz]}" "$R_GZ_U" "$(rssmib "${RSS[ingest_gz]}")"
printf "$fmt" "lockspan ingest" ".gz (MB/s on compressed)" "$GZ_MB" "${SECS[ingest_gz]}" "$R_GZ_C" "$(rssmib "${RSS[ingest_gz]}")"
printf "$fmt" "gzip -dc > /dev/null" ".gz (MB/s on uncompressed)" "$LOG_MB" "${SECS[gzip_dc]}" "$R_GZIP" "$(rssmib "${RSS[gzip_dc]}")"
if ((HAVE_PGB)); then
    R_PGB=$(rate "$PGB_BYTES" "${SECS[pgbadger]}")
    printf "$fmt" "pgbadger -j 1" "plain log, $PGB_NOTE" "$PGB_IN_MB" "${SECS[pgbadger]}" "$R_PGB" "$(rssmib "${RSS[pgbadger]}")"
else
    printf "$fmt" "pgbadger" "not installed" "-" "-" "-" "-"
fi
printf "$fmt" "lockspan analyze" "plain log (ingest+corr+report)" "$LOG_MB" "${SECS[analyze]}" "$R_AN" "$(rssmib "${RSS[analyze]}")"
echo
echo "ingest store size: $(mib "$DB_PLAIN_BYTES") MiB"
for n in ingest_plain ingest_gz gzip_dc pgbadger analyze; do
    [[ -n "${RC[$n]:-}" && "${RC[$n]}" != 0 ]] && echo "WARNING: $n exited with status ${RC[$n]} (see $WORK/stderr.$n.txt)"
done
((HAVE_PGB)) && [[ "$PGB_NOTE" != "whole log" ]] &&
    echo "note: pgbadger ran on the $PGB_NOTE ($PGB_IN_MB MiB) of the log; its MB/s is computed on that slice"
echo

FAILS=0
verdict() { # verdict LABEL VALUE OP TARGET
    local ok
    ok=$(awk -v v="$2" -v t="$4" -v op="$3" 'BEGIN {
        if (v == "n/a") { print "FAIL"; exit }
        if (op == ">=") print (v + 0 >= t + 0 ? "PASS" : "FAIL"); else print (v + 0 <= t + 0 ? "PASS" : "FAIL") }')
    [[ "$ok" == FAIL ]] && FAILS=$((FAILS + 1))
    printf '%-58s %10s  (target %s %s)  %s\n' "$1" "$2" "$3" "$4" "$ok"
}
echo "targets:"
if ((HAVE_PGB)); then
    verdict "lockspan ingest MB/s / pgbadger MB/s" "$(div "$R_PLAIN" "$R_PGB")" ">=" 50
else
    printf '%-58s %10s  (target >= 50)  SKIP (pgbadger: not installed)\n' "lockspan ingest MB/s / pgbadger MB/s" "n/a"
fi
verdict "lockspan .gz ingest MB/s (uncompr.) / gzip -dc MB/s" "$(div "$R_GZ_U" "$R_GZIP")" ">=" 0.7
verdict "peak RSS MiB, lockspan ingest (plain)" "$(rssmib "${RSS[ingest_plain]}")" "<=" 64
verdict "peak RSS MiB, lockspan ingest (.gz)" "$(rssmib "${RSS[ingest_gz]}")" "<=" 64
verdict "peak RSS MiB, lockspan analyze" "$(rssmib "${RSS[analyze]}")" "<=" 64

if [[ "${LOCKSPAN_BENCH_STRICT:-0}" == 1 && $FAILS -gt 0 ]]; then
    exit 1
fi
exit 0
