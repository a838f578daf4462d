#!/usr/bin/env bash
# Open the HTML report of samples/basic, hostile and hidden in headless
# Chromium (no network, no sandbox, a throw-away profile) and check that
#   - every section and every hot-row timeline is in the rendered DOM,
#   - no script ran: the DOM after load has exactly the elements of the
#     static file (nothing added), and the console logged nothing (no alert,
#     no JS error, no Content-Security-Policy refusal),
#   - a screenshot was drawn (kept as a test artifact; its path is printed),
#   - the layout holds, measured in the page by layout_probe.js (injected
#     into a copy without the CSP; the report itself runs nothing) at
#     desktop width (1400 px), in print emulation (the @media print rules
#     applied to a 703 px page: A4's 210 mm less 12 mm margins, Letter is
#     wider) and in dark mode (the prefers-color-scheme rules applied):
#     no text drawn over a bar or over other text in any SVG, no table,
#     figure or cell wider than the page or cut, every section laid out,
#     and dark mode really dark.
#   - the probe can fail: a copy with lane labels moved onto the bars, and
#     one with a table wider than the page, must be caught.
#
# Usage: browser_html.sh LOCKSPAN SAMPLES_DIR OUTDIR [CHROMIUM]
# Extra reports to probe (a pgbench log's, say): BROWSER_HTML_EXTRA="a.html b.html"
set -euo pipefail

LS=$1
SAMPLES=$2
OUT=$3
CHROMIUM=${4:-chromium}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
mkdir -p "$OUT"
fail=0
passed=0
SECTIONS="summary findings code-paths hot-rows timelines slow-requests root-blockers holds by-statement worst-moment waits deadlocks errors input"

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

# probe HTML MODE NAME: lay out a probed copy of HTML in MODE (desktop, print,
# dark); prints the probe's JSON to $OUT/NAME.MODE.json.
probe() {
    local html=$1 mode=$2 name=$3 copy="$OUT/$name.$mode.probe.html"
    "$PY" - "$html" "$copy" "$mode" "$HERE/layout_probe.js" <<'PY'
import re
import sys
src, dst, mode, js = sys.argv[1:5]
s = open(src, encoding="utf-8").read()
s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", s)
if mode == "print":
    assert "@media print{" in s, "the report has print rules"
    s = s.replace("@media print{", "@media all{").replace("</style>", "html{width:703px}</style>")
elif mode == "dark":
    assert "@media (prefers-color-scheme:dark){" in s, "the report has dark rules"
    s = s.replace("@media (prefers-color-scheme:dark){", "@media all{")
s = s.replace("</body>", "<script>" + open(js).read() + "</script></body>")
open(dst, "w", encoding="utf-8").write(s)
PY
    chrome --window-size=1400,900 --dump-dom "file://$copy" 2>"$OUT/$name.$mode.probe.log" |
        "$PY" -c '
import html, re, sys
m = re.findall(r"<pre id=\"layout-result\">(\{[^<]*\})</pre>", sys.stdin.read())
print(html.unescape(m[-1]) if m else "{}")' >"$OUT/$name.$mode.json"
}

# judge NAME MODE: the layout checks on $OUT/NAME.MODE.json; exit 1 on a failure.
judge() {
    "$PY" - "$OUT/$1.$2.json" "$1" "$2" "$SECTIONS" <<'PY'
import json
import re
import sys
path, name, mode, sections = sys.argv[1:5]
d = json.load(open(path))
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print(f"FAIL: {name} {mode}: {what}")


check("sections" in d, "the layout probe ran")
for s in sections.split():
    check(s in d.get("sections", []), f"section #{s} is laid out")
check(d.get("svgs", 0) > 0 and d.get("texts", 0) > 0, "svg text was measured")
check(not d.get("overlaps"), f"{len(d.get('overlaps', []))} overlapping texts: {d.get('overlaps', [])[:4]}")
check(not d.get("overflow"), f"{len(d.get('overflow', []))} overflows: {d.get('overflow', [])[:4]}")
if mode == "print":
    check(d.get("width") == 703, f"page width {d.get('width')} in print emulation")


def lum(css):
    v = [int(x) for x in re.findall(r"\d+", css)[:3]] or [255, 255, 255]
    return sum(v) / 765


c = d.get("colors", {})
if mode == "dark":
    check(lum(c.get("background", "")) < 0.2 and lum(c.get("color", "")) > 0.7,
          f"dark mode is dark: {c}")
else:
    check(lum(c.get("background", "")) > 0.9 and lum(c.get("color", "")) < 0.3,
          f"light page: {c}")
print(f"{name} {mode}: {len(d.get('sections', []))} sections, {d.get('svgs')} svgs, "
      f"{d.get('texts')} texts, page {d.get('width')}x{d.get('height')} px")
sys.exit(1 if failed else 0)
PY
}

reports=()
for name in basic hostile hidden; do
    dir=$SAMPLES/$name
    html=$OUT/$name.html
    "$LS" analyze -q --prefix "$(cat "$dir/prefix.txt")" --generated-at T0 --format html \
        -o "$html" "$dir/postgresql.log"
    reports+=("$html")
done
for extra in ${BROWSER_HTML_EXTRA:-}; do
    cp "$extra" "$OUT/$(basename "$extra" .html).html"
    reports+=("$OUT/$(basename "$extra" .html).html")
done

for html in "${reports[@]}"; do
    name=$(basename "$html" .html)
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
check(len(figures) > 0 and len(svgs) >= len(figures), "every hot-row timeline has its <svg>")
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
    for mode in desktop print dark; do
        probe "$html" "$mode" "$name"
        if judge "$name" "$mode"; then passed=$((passed + 1)); else fail=$((fail + 1)); fi
    done
done

# The probe must be able to fail: lane labels moved onto the bars, and a
# table given a width no page has, in the basic report.
"$PY" - "$OUT/basic.html" "$OUT/mutant-overlap.html" "$OUT/mutant-wide.html" <<'PY'
import re
import sys
s = open(sys.argv[1], encoding="utf-8").read()
o, n = re.subn(r'<text class="lane( holder)?" x="\d+"', r'<text class="lane\1" x="700"', s)
assert n > 0, "the basic report has lane labels"
open(sys.argv[2], "w", encoding="utf-8").write(o)
open(sys.argv[3], "w", encoding="utf-8").write(
    s.replace("</style>", "table{min-width:2000px}</style>", 1))
PY
probe "$OUT/mutant-overlap.html" desktop mutant-overlap
probe "$OUT/mutant-wide.html" print mutant-wide
for m in "mutant-overlap desktop overlapping" "mutant-wide print overflows"; do
    set -- $m
    if { judge "$1" "$2" || true; } | grep -q "FAIL: $1 $2: [0-9]* $3"; then
        passed=$((passed + 1))
    else
        echo "FAIL: the layout probe did not catch $1"; fail=$((fail + 1))
    fi
done
echo "$passed passed, $fail failed"
[[ $fail -eq 0 ]]
