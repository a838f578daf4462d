#!/usr/bin/env python3
"""The three report formats carry the same facts, and log text renders
inert in each.

For samples/basic and samples/hostile (a real server run whose statements,
application names and relation name carry script tags, event handlers,
Markdown and mermaid injection, control characters and invalid UTF-8), run
`analyze` in json, md and html and check:

- the same facts everywhere: wait count, the blocker pid of every wait,
  deadlock victims, the number of hot rows;
- HTML: parsed with html.parser, only the elements the renderer writes
  exist (so no <script>, <img>, <iframe>, ...), no on* attribute, no
  javascript: URL, no link leaving the page; every section id is present,
  one timeline per hot row; the payloads appear as text only;
- Markdown: no raw tags from the log, every table row has as many cells as
  its header, mermaid blocks hold no click, no %%{ directive, no raw <,
  and balanced quotes on every line;
- JSON: parses, and holds the payloads verbatim, with control characters
  and invalid UTF-8 replaced by U+FFFD.

Usage: check_html.py LOCKSPAN SAMPLES_DIR
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

SECTIONS = ["summary", "hot-rows", "timelines", "root-blockers", "holds", "waits", "deadlocks",
            "errors", "input"]
# Every element html.c writes. Anything else came from log text.
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "nav",
    "a", "main", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "code", "span",
    "ul", "li", "b", "figure", "figcaption", "article", "svg", "defs", "marker", "path", "rect",
    "line", "text", "g", "circle", "details", "summary",
}
TABLE_OPEN, TABLE_CAP = 10, 100  # html.c: rows shown open, rows written at all
PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    '"]; click A call alert(1); A["',
    "| injected | cell |",
    "[link](javascript:alert(1))",
]


class Page(html.parser.HTMLParser):
    """Elements, attributes, text per section, and table rows per section."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.attrs = []
        self.ids = []
        self.section = None
        self.text = {}
        self.rows = {}
        self.row = None
        self.cell = None
        self.in_tbody = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend((tag, k, v or "") for k, v in attrs)
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "section":
            self.section = a.get("id")
        elif tag == "tbody":
            self.in_tbody = True
        elif tag == "tr" and self.in_tbody:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.setdefault(self.section, []).append(self.row)
            self.row = None
        elif tag == "tbody":
            self.in_tbody = False

    def handle_data(self, data):
        self.text[self.section] = self.text.get(self.section, "") + data
        if self.cell is not None:
            self.cell += data



def pid_cell(o, key):
    """A pid's table cell: "10550 · path" with the code path the JSON gives
    it (key blocker_pid: blocker_code_path), the pid alone without one."""
    path = o.get(key[:-3] + "code_path")
    if o.get(key) is None:
        return "—"
    return f"{o[key]} · {path}" if path else str(o[key])

def run(*args):
    return subprocess.run(list(args), capture_output=True)


def md_tables(md):
    """Blocks of consecutive lines starting with '|', outside code fences."""
    tables, cur, fence = [], [], False
    for line in md.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("|"):
            cur.append(line)
        else:
            if cur:
                tables.append(cur)
            cur = []
    if cur:
        tables.append(cur)
    return tables


def md_cells(line):
    """A table row's cells: split on the pipes not escaped (a cell's own
    pipe is written \\|; the delimiters follow a space)."""
    return re.split(r"(?<!\\)\|", line.strip()[1:-1])


def md_outside_code(md):
    """The Markdown's text outside fenced blocks and code spans."""
    md = re.sub(r"^(`{3,}).*?^\1$", "", md, flags=re.M | re.S)
    return re.sub(r"(?<!\\)`[^`\n]*`", "", md)


# C1 controls, line and paragraph separators (U+2028, U+2029) and
# bidirectional overrides and isolates: put in a log, they
# must reach no report raw.
INVISIBLE = "\u202e\u2066\u0085\u202a\u2069\u009b\u2028\u2029"


def check_invisible(ls, tmp):
    """samples/hostile with C1 controls and bidi overrides after every
    alert(1) payload (in statements, application and relation names)."""
    src = open(os.path.join(HOSTILE, "postgresql.log"), "rb").read()
    log = os.path.join(tmp, "invisible.log")
    open(log, "wb").write(src.replace(b"alert(1)", ("alert(1)" + INVISIBLE).encode()))
    prefix = open(os.path.join(HOSTILE, "prefix.txt")).read().rstrip("\n")
    for fmt in ("json", "md", "html"):
        path = os.path.join(tmp, "invisible." + fmt)
        r = run(ls, "analyze", "-q", "--prefix", prefix, "--format", fmt, "-o", path, log)
        check(r.returncode == 0, f"invisible: analyze --format {fmt}")
        text = open(path, encoding="utf-8").read() if r.returncode == 0 else ""
        check(not any(c in text for c in INVISIBLE),
              f"invisible: no C1 control or bidi override raw in {fmt}")
        if fmt == "json":
            blob = json.dumps(json.loads(text), ensure_ascii=False)
            check(("alert(1)" + INVISIBLE) in blob,
                  "invisible: json keeps them, as \\u escapes")
        else:
            check("U+202E" in text and "U+0085" in text,
                  f"invisible: {fmt} shows them as U+XXXX")


def mermaid_blocks(md):
    return re.findall(r"^```mermaid\n(.*?)^```$", md, re.M | re.S)


def check_sample(ls, sample, tmp):
    name = os.path.basename(sample)
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    log = os.path.join(sample, "postgresql.log")
    out = {}
    for fmt in ("json", "md", "html"):
        path = os.path.join(tmp, f"{name}.{fmt}")
        r = run(ls, "analyze", "-q", "--prefix", prefix, "--generated-at", "T0", "--format",
                fmt, "-o", path, log)
        check(r.returncode == 0, f"{name}: analyze --format {fmt}: {r.stderr[-300:]!r}")
        out[fmt] = open(path, "rb").read() if r.returncode == 0 else b""

    # JSON: valid, and the facts of record.
    rep = json.loads(out["json"].decode("utf-8"))
    waits = rep["waits"]
    nwaits = rep["summary"]["waits"]
    check(len(waits) == nwaits and nwaits > 0, f"{name}: json lists every wait")
    victims = [d["victim_pid"] for d in rep["deadlocks"]]

    # HTML: valid UTF-8, only our elements, nothing active.
    raw = out["html"].decode("utf-8")  # strict: raises on invalid UTF-8
    page = Page()
    page.feed(raw)
    page.close()
    stray = sorted(set(page.tags) - ALLOWED_TAGS)
    check(not stray, f"{name}: html has only the renderer's elements (stray: {stray})")
    check("script" not in page.tags, f"{name}: html has no <script> element")
    handlers = [(t, k) for t, k, v in page.attrs if k.lower().startswith("on")]
    check(not handlers, f"{name}: html has no on* attribute ({handlers[:3]})")
    js = [(t, k, v) for t, k, v in page.attrs
          if re.sub(r"[\s\x00-\x1f]", "", v).lower().startswith(("javascript:", "data:",
                                                                    "vbscript:"))]
    check(not js, f"{name}: html has no javascript:/data: URL ({js[:3]})")
    hrefs = [v for t, k, v in page.attrs if k in ("href", "src", "xlink:href", "action")]
    check(all(h.startswith("#") for h in hrefs), f"{name}: every link stays in the page")
    urls = [v for t, k, v in page.attrs if "url(" in v]
    check(all(re.fullmatch(r"url\(#[a-z0-9-]+\)", u) for u in urls),
          f"{name}: url() only to our own markers")
    check(not re.search(r"<\s*(script|img|iframe|object|embed)\b", raw, re.I),
          f"{name}: no raw markup from the log in the html source")
    check("\x1b" not in raw and "\x07" not in raw, f"{name}: no control characters in html")
    for sid in SECTIONS:
        check(sid in page.ids, f"{name}: html section #{sid}")
    check(len(set(page.ids)) == len(page.ids), f"{name}: html ids are unique")
    ntl = min(len(rep["hot_rows"]), 10)
    check(page.tags.count("figure") == ntl and raw.count('<svg class="tl"') >= ntl,
          f"{name}: a timeline figure per hot row ({ntl}), an svg per episode")
    check(raw.count('<svg class="dl"') == len(rep["deadlocks"]), f"{name}: a cycle per deadlock")
    # The wait list: the first TABLE_OPEN rows open, up to TABLE_CAP in a
    # <details>, the rest counted and pointed to the JSON.
    wait_rows = page.rows.get("waits", [])
    shown = min(nwaits, TABLE_CAP)
    check(len(wait_rows) == shown, f"{name}: html lists {len(wait_rows)} of {nwaits} waits")
    check([r[1] for r in wait_rows] == [pid_cell(w, "pid") for w in waits[:shown]] and
          [r[7] for r in wait_rows] == [pid_cell(w, "blocker_pid") for w in waits[:shown]],
          f"{name}: html waiter and blocker pids, each with its code path")
    waits_html = raw.split('<section id="waits">')[1].split("</section>")[0]
    folded = re.findall(r"(\d+) more rows?</summary>", waits_html)
    check(folded == ([str(shown - TABLE_OPEN)] if shown > TABLE_OPEN else []),
          f"{name}: html folds the waits past the first {TABLE_OPEN} and counts them")
    check((f"{nwaits - shown} more rows are not shown" in waits_html) == (nwaits > shown),
          f"{name}: html counts the waits past {TABLE_CAP}")
    for v in victims:
        check(f"victim pid {v}" in page.text.get("deadlocks", ""), f"{name}: html victim {v}")
    check(len(page.rows.get("hot-rows", [])) == len(rep["hot_rows"]), f"{name}: html hot rows")

    # Markdown: tables keep their shape; diagrams hold no directives.
    md = out["md"].decode("utf-8")
    # Statements may sit verbatim inside fenced code blocks (inert); nowhere else.
    prose = re.sub(r"^(`{3,})(?!mermaid).*?^\1$", "", md, flags=re.M | re.S)
    # (a backslash-escaped \< is literal text in CommonMark, not a tag)
    check(not re.search(r"(?<!\\)<\s*(script|img|svg|iframe)", prose, re.I),
          f"{name}: no raw markup in markdown outside code blocks")
    check("\x1b" not in md and "\x07" not in md, f"{name}: no control characters in markdown")
    bad = [t[0] for t in md_tables(md) if len({len(md_cells(l)) for l in t}) != 1]
    check(not bad, f"{name}: every markdown table row has its header's cell count {bad[:2]}")
    blocks = mermaid_blocks(md)
    check(len(blocks) == min(len(rep["hot_rows"]), 10) + len(rep["deadlocks"]),
          f"{name}: a gantt per hot row and a graph per deadlock ({len(blocks)})")
    for b in blocks:
        check("click" not in b.lower(), f"{name}: no click in mermaid")
        check("%%" not in b, f"{name}: no %% directive or comment in mermaid")
        check("<" not in b and "javascript:" not in b.lower(), f"{name}: no markup in mermaid")
        check(all(l.count('"') % 2 == 0 for l in b.split("\n")),
              f"{name}: balanced quotes in mermaid")
    section = md.split("## Lock waits")[1].split("\n## ")[0]
    md_rows = [md_cells(l) for l in section.split("\n") if re.match(r"^\| 20\d\d-", l)]
    check(len(md_rows) == nwaits, f"{name}: markdown lists every wait")
    check([c[7].strip().split(" · ")[0] for c in md_rows] ==
          [str(w["blocker_pid"]) if w["blocker_pid"] is not None else "—" for w in waits],
          f"{name}: markdown blocker pids")
    for v in victims:
        check(f"victim pid {v}" in md, f"{name}: markdown victim {v}")
    check("&#" not in md_outside_code(md), f"{name}: no HTML entity code outside code in markdown")

    if name != "hostile":
        return
    # The payloads: verbatim in JSON, text (never markup) in HTML.
    strings = []

    def walk(o):
        if isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
        elif isinstance(o, str):
            strings.append(o)
    walk(rep)
    blob = "\n".join(strings)
    alltext = "".join(page.text.values())
    for p in PAYLOADS:
        check(p in blob, f"hostile: json holds {p!r} verbatim")
        check(p in alltext, f"hostile: html shows {p!r} as text")
    check("\ufffd[31mred\ufffdbell caf\ufffd \ufffd\ufffd" in blob,
          "hostile: control characters and invalid UTF-8 become U+FFFD in json")
    check("\x1b" not in blob and "\x07" not in blob, "hostile: no control characters in json")
    check(any(h["relation"] == "<img src=x onerror=alert(1)>" for h in rep["hot_rows"]),
          "hostile: the hostile relation name is a hot row")
    check("&lt;script&gt;alert(1)&lt;/script&gt;" in raw, "hostile: html escapes the tags")
    check("#60;script#62;" in md, "hostile: mermaid labels encode the tags")


def check_tz(ls, sample, tmp):
    """--tz ZONE: every time of the HTML in the zone, by the tz database's
    own rules (Python's zoneinfo, not lockspan's), the zone named once;
    without it, UTC; the Markdown's times are the same instants in the zone,
    ISO 8601 with the zone's offset, the zone named; the JSON's stay UTC and
    name the zone asked for; an unknown zone is a usage error."""
    import datetime
    import zoneinfo
    log = os.path.join(sample, "postgresql.log")
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    js, utc, ny = (os.path.join(tmp, n) for n in ("tz.json", "utc.html", "ny.html"))
    utc_md, ny_md, ny_js = (os.path.join(tmp, n) for n in ("utc.md", "ny.md", "ny.json"))
    r = run(ls, "analyze", "-q", "--prefix", prefix, "-o", js, "-o", utc, "-o", utc_md, log)
    r2 = run(ls, "analyze", "-q", "--prefix", prefix, "--tz", "America/New_York", "-o", ny,
             "-o", ny_md, "-o", ny_js, log)
    check(r.returncode == 0 and r2.returncode == 0, "--tz: analyze runs")
    if r.returncode or r2.returncode:
        return
    start = json.load(open(js))["summary"]["time_range"]["start"]
    t = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
    want = {"utc": t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"}
    t = t.astimezone(zoneinfo.ZoneInfo("America/New_York"))
    want["ny"] = t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
    for name, path in (("utc", utc), ("ny", ny)):
        raw = open(path, encoding="utf-8").read()
        got = re.search(r"Time range</th><td>([^<]*) →", raw)
        check(got and got.group(1) == want[name],
              f"--tz {name}: time range starts {want[name]} ({got and got.group(1)})")
        check(not re.search(r"\d{4}-\d\d-\d\dT\d", raw.split("</style>")[1]),
              f"--tz {name}: no ISO 'T' time left in the page")
    check("All times America/New_York (EST, UTC-05:00" in open(ny, encoding="utf-8").read(),
          "--tz: the page names the zone and its offset")
    # JSON: UTC whatever the zone, which it names.
    a, b = json.load(open(js)), json.load(open(ny_js))
    check(b.get("time_zone") == "America/New_York" and "time_zone" not in a,
          "--tz: the JSON names the zone asked for")
    b.pop("time_zone", None)
    check(a == b, "--tz: the JSON's times stay UTC (the report is otherwise the same)")
    # Markdown: each UTC time of the plain report is, in the --tz one, the
    # same instant in New York by zoneinfo, with its offset.
    iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(?:Z|[+-]\d\d:\d\d)"
    plain = re.findall(iso, open(utc_md, encoding="utf-8").read())
    zoned_text = open(ny_md, encoding="utf-8").read()
    zoned = re.findall(iso, zoned_text)
    nyz = zoneinfo.ZoneInfo("America/New_York")
    want_md = [datetime.datetime.fromisoformat(x.replace("Z", "+00:00")).astimezone(nyz)
               .isoformat(timespec="microseconds") for x in plain]
    check(len(plain) > 10 and all(x.endswith("Z") for x in plain),
          f"markdown without --tz: {len(plain)} times, all UTC")
    check(zoned == want_md, f"--tz: the Markdown's {len(zoned)} times are zoneinfo's "
          f"({[p for p in zip(zoned, want_md) if p[0] != p[1]][:2]})")
    check("Times are in America/New\\_York" in zoned_text, "--tz: the Markdown names the zone")
    r = run(ls, "analyze", "-q", "--prefix", prefix, "--tz", "Mars/Olympus", "-o", ny, log)
    check(r.returncode == 2 and b"unknown time zone" in r.stderr, "--tz: unknown zone refused")


def main():
    global HOSTILE
    ls, samples = sys.argv[1], sys.argv[2]
    HOSTILE = os.path.join(samples, "hostile")
    tmp = tempfile.mkdtemp(prefix="lockspan-html.")
    try:
        for name in ("basic", "hostile"):
            check_sample(ls, os.path.join(samples, name), tmp)
        check_invisible(ls, tmp)
        check_tz(ls, os.path.join(samples, "basic"), tmp)
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
