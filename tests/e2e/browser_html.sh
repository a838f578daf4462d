#!/usr/bin/env bash
# Open the HTML report of samples/basic and samples/hostile in headless
# Chromium (no network, no sandbox, a throw-away profile) and check that
#   - every section and every hot-row timeline is in the rendered DOM,
#   - no script ran: the DOM after load has exactly the elements of the
#     static file (nothing added), and the console logged nothing (no alert,
#     no JS error, no Content-Security-Policy refusal),
#   - a screenshot was drawn (kept as a test artifact; its path is printed).
#
# Usage: browser_html.sh LOCKSPAN SAMPLES_DIR OUTDIR [CHROMIUM]
set -euo pipefail

LS=$1
SAMPLES=$2
OUT=$3
CHROMIUM=${4:-chromium}
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
mkdir -p "$OUT"
fail=0
passed=0

chrome() {
    local profile
    profile=$(mktemp -d "${TMPDIR:-/tmp}/lockspan-chromium.XXXXXX")
    # HOME too: chromium writes caches there.
    HOME=$profile timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --user-data-dir="$profile" \
        --enable-logging=stderr --v=0 "$@"
    local rc=$?
    rm -rf "$profile"
    return $rc
}

for name in basic hostile; do
    dir=$SAMPLES/$name
    html=$OUT/$name.html
    "$LS" analyze -q --prefix "$(cat "$dir/prefix.txt")" --generated-at T0 --format html \
        -o "$html" "$dir/postgresql.log"
    chrome --dump-dom "file://$html" >"$OUT/$name.dom.html" 2>"$OUT/$name.dom.log" || {
        echo "FAIL: $name: chromium --dump-dom failed"; cat "$OUT/$name.dom.log"; fail=$((fail + 1)); continue; }
    chrome --screenshot="$OUT/$name.png" --window-size=1400,3000 --hide-scrollbars \
        "file://$html" >/dev/null 2>"$OUT/$name.shot.log" || {
        echo "FAIL: $name: chromium --screenshot failed"; cat "$OUT/$name.shot.log"; fail=$((fail + 1)); continue; }
    if "$PY" - "$html" "$OUT/$name.dom.html" "$OUT/$name.png" "$OUT/$name.dom.log" \
        "$OUT/$name.shot.log" <<'PY'
import html.parser
import re
import struct
import sys

static_path, dom_path, png_path = sys.argv[1:4]
logs = sys.argv[4:]
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL:", what)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.ids, self.classes = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        self.classes.append((tag, a.get("class") or ""))


def parse(path):
    p = Tags()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p


static, dom = parse(static_path), parse(dom_path)
for sid in ["summary", "hot-rows", "timelines", "root-blockers", "holds", "waits",
            "deadlocks", "errors", "input"]:
    check(sid in dom.ids, f"section #{sid} in the rendered DOM")
figures = [i for i in dom.ids if i.startswith("timeline-")]
svgs = [c for t, c in dom.classes if t == "svg" and c == "tl"]
check(len(figures) > 0 and len(svgs) == len(figures), "every hot-row timeline has its <svg>")
check(dom.tags.count("rect") > 10, "timelines have their bars")
# Nothing ran: the live DOM has exactly the static file's elements.
check("script" not in dom.tags, "no <script> in the DOM")
check(sorted(dom.tags) == sorted(static.tags),
      f"the DOM has the static file's elements ({len(dom.tags)} vs {len(static.tags)})")
for log in logs:
    text = open(log, encoding="utf-8", errors="replace").read()
    bad = [l for l in text.split("\n")
           if re.search(r"CONSOLE|Uncaught|alert|Refused to|Content Security Policy", l)]
    check(not bad, f"no console output, alert or CSP refusal ({bad[:2]})")
png = open(png_path, "rb").read()
check(png[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is a PNG")
w, h = struct.unpack(">II", png[16:24])
check((w, h) == (1400, 3000) and len(png) > 50000, f"screenshot drawn ({w}x{h}, {len(png)} B)")
sys.exit(1 if failed else 0)
PY
    then
        passed=$((passed + 1))
    else
        fail=$((fail + 1))
    fi
    echo "screenshot: $OUT/$name.png"
done
echo "$passed passed, $fail failed"
[[ $fail -eq 0 ]]
