#!/usr/bin/env python3
"""A page that fits a screen and a printout (issue 36, item 4's layout
part), in headless Chromium, on samples/app (a real traced run,
samples/README.md).

Usage: browser_layout.py LOCKSPAN PROJECT_DIR OUTDIR [CHROMIUM]

The sample is analyzed into an HTML report, then:
  - at 1440 px wide the page is under 8,000 px tall, and no table is wider
    than the viewport or scrolls sideways inside its box;
  - secondary detail is folded under its row with a count: each root
    blocker's statements ("N statements of its transaction", N its
    transaction's statements in the JSON), the hot row's ctids ("N ctids",
    N the items of its ctid list), every statement longer than 160
    characters ("(N characters)", N its length);
  - printed to PDF by Chromium (--print-to-pdf) and read back with
    pdftotext: no word of the page's own text (headings, table headers,
    cells other than statements, file names and words over 24 characters)
    is broken across two lines ("Relati" / "on"), each such word is in
    the PDF whole, and the folded rows are printed: every time in a table
    cell is in the PDF as often as in the HTML, and nothing says it was
    not printed; no hover hint is printed;
  - screenshots: OUTDIR/desktop-1440.png (first screen), phone-390.png,
    print-page1.png (pdftoppm) when pdftoppm is there.
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import collections
import html as htmllib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

WIDE = 1440
PHONE = 390
MAX_HEIGHT = 8000
LONG_WORD = 24      # html.c: longer words may break anywhere
CODE_FOLD = 160     # html.c: longer statements are folded

PROBE = """(function(){var vw=document.documentElement.clientWidth,wide=[];
document.querySelectorAll('table').forEach(function(t){var b=t.getBoundingClientRect();
if(b.width===0)return;var box=t.parentNode;
if(b.right>vw+1||t.scrollWidth>box.clientWidth+1||box.scrollWidth>box.clientWidth+1)
wide.push(((t.closest('section')||{}).id)+': '+t.querySelector('th').textContent+' '+
Math.round(b.width)+' px');});
var p=document.createElement('pre');p.id='probe';p.textContent=JSON.stringify({height:
document.documentElement.scrollHeight,viewport:vw,wide:wide});document.body.appendChild(p);})();"""


def chrome(chromium, tmp, args):
    profile = tempfile.mkdtemp(dir=tmp)
    return subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}"]
                          + args, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, HOME=profile))


def probe(chromium, page, tmp, width):
    src = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    copy = os.path.join(tmp, f"probe-{width}.html")
    open(copy, "w", encoding="utf-8").write(src.replace("</body>", f"<script>{PROBE}</script></body>"))
    p = chrome(chromium, tmp, [f"--window-size={width},900", "--dump-dom", "file://" + copy])
    m = re.search(r'<pre id="probe">(\{[^<]*\})</pre>', p.stdout)
    return json.loads(htmllib.unescape(m.group(1))) if m else None


def text_of(fragment):
    return htmllib.unescape(re.sub(r"<[^>]+>", "", fragment))


def check_folds(page, model):
    roots = model["root_blockers"]
    got = [int(n) for n in re.findall(r"<summary>(\d+) statements? of its transaction</summary>", page)]
    want = [len(r["transaction"]["statements"]) for r in roots
            if r.get("transaction") and r["transaction"].get("statements")]
    check(got == want and got, f"root blockers' statements folded under their count: {got} vs {want}")
    ctids = model["hot_rows"][0]["ctid"].split()
    check(f"<summary>{len(ctids)} ctids</summary>" in page,
          f"the hot row's {len(ctids)} ctids folded under their count")
    longs = re.findall(r'<details class="long"><summary><code>.*?</code> <span class="count">'
                       r'\((\d+) characters\)</span></summary><code>(.*?)</code></details>', page, re.S)
    check(longs, "long statements are folded")
    for n, body in longs:
        full = text_of(body)
        check(int(n) > CODE_FOLD and (len(full) == int(n) or full.endswith("…")),
              f"a folded statement's length {n} is its text's ({len(full)})")
    # No statement over CODE_FOLD left open in a table cell.
    bare = [c for c in re.findall(r"<td><code>(.*?)</code></td>", page, re.S)
            if len(text_of(c)) > CODE_FOLD]
    check(not bare, f"{len(bare)} long statements not folded")


def page_words(page):
    """Words of the page's own text that must stay whole in print."""
    s = re.sub(r"<(style|svg|code|title)\b.*?</\1>", " ", page, flags=re.S)
    s = re.sub(r'<span class="lw">.*?</span>', " ", s, flags=re.S)
    s = re.sub(r'<td class="src">.*?</td>', " ", s, flags=re.S)
    s = re.sub(r"<nav>.*?</nav>", " ", s, flags=re.S)  # not printed
    s = re.sub(r'<span class="hover">.*?</span>', " ", s, flags=re.S)  # not printed
    # A folded statement prints whole, without its head and length.
    s = re.sub(r'<details class="long"><summary>.*?</summary>', " ", s, flags=re.S)
    s = s.split("<body>", 1)[1].replace("<wbr>", "")
    s = htmllib.unescape(re.sub(r"<[^>]+>", " ", s))
    return set(re.findall(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z_]{4,%d}(?![A-Za-z0-9_])" % LONG_WORD, s))


def check_print(page, pdf_text):
    toks = collections.Counter(re.findall(r"[A-Za-z][A-Za-z_]*", pdf_text))
    words = page_words(page)
    check(len(words) > 100, f"words to look for in the PDF: {len(words)}")
    broken, missing = [], []
    for w in sorted(words):
        if toks[w] == 0:
            missing.append(w)
        for k in range(1, len(w)):
            # A word's two pieces on consecutive lines, each a whole token
            # there (a statement, which may break anywhere, is not matched
            # by a piece inside a longer token), the second not running on
            # into the next line: "post|gres|ql.lo|g:55" is a log's file
            # name in its narrow column (td.src, which may break anywhere),
            # not the word "postgres" broken.
            if re.search(r"(?<![A-Za-z0-9_])" + re.escape(w[:k]) + r"\n" + re.escape(w[k:]) +
                         r"(?![A-Za-z0-9_])(?!\n[a-z])", pdf_text):
                broken.append(f"{w[:k]}|{w[k:]}")
    check(not broken, f"{len(broken)} words broken across lines in print: {broken[:12]}")
    check(not missing, f"{len(missing)} words not whole in the PDF: {missing[:12]}")
    check("not printed" not in pdf_text, "the print says some folded rows were not printed")
    check("Hover" not in pdf_text and "hover" not in pdf_text, "a hover hint is printed")
    # Folded rows printed: each time in a table cell as often as in the HTML.
    times = collections.Counter(re.findall(r'<td class="t">\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d\.\d{3})</td>',
                                           page))
    short = {t: (n, pdf_text.count(t)) for t, n in times.items() if pdf_text.count(t) < n}
    check(len(times) > 20, f"times in table cells: {len(times)}")
    check(not short, f"{len(short)} table times printed fewer times than the HTML has them "
                     f"(folded rows not printed): {list(short.items())[:5]}")


def main():
    lockspan, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    chromium = sys.argv[4] if len(sys.argv) > 4 else shutil.which("chromium")
    pdftotext = shutil.which("pdftotext")
    if not chromium or not pdftotext:
        print(f"FAIL: needs chromium ({chromium}) and pdftotext ({pdftotext}, poppler-utils)")
        return 1
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="lockspan-layout.")
    try:
        d = os.path.join(root, "samples", "app")
        html, js = os.path.join(out, "app.html"), os.path.join(tmp, "app.json")
        p = subprocess.run([lockspan, "analyze", "-q", "--generated-at", "T0",
                            "--prefix", open(os.path.join(d, "prefix.txt")).read(),
                            "-o", html, "-o", js, os.path.join(d, "postgresql.log"),
                            os.path.join(d, "traces.otlp.jsonl")], capture_output=True, text=True)
        check(p.returncode == 0, f"analyze exit {p.returncode}: {p.stderr[-300:]}")
        if p.returncode != 0:
            return report()
        page = open(html, encoding="utf-8").read()
        model = json.load(open(js))

        r = probe(chromium, page, tmp, WIDE)
        check(r is not None, "the layout probe ran")
        if r:
            check(r["height"] < MAX_HEIGHT, f"page height at {WIDE} px: {r['height']} px "
                                            f"(under {MAX_HEIGHT})")
            check(not r["wide"], f"tables wider than the {r['viewport']} px viewport or scrolling "
                                 f"sideways: {r['wide']}")
            print(f"note: at {WIDE} px the page is {r['height']} px tall")
        check_folds(page, model)

        pdf = os.path.join(out, "app.pdf")
        p = chrome(chromium, tmp, ["--no-pdf-header-footer", f"--print-to-pdf={pdf}",
                                   "file://" + html])
        check(os.path.exists(pdf) and os.path.getsize(pdf) > 10000, f"printed to PDF: {p.stderr[-200:]}")
        if os.path.exists(pdf):
            t = subprocess.run([pdftotext, pdf, "-"], capture_output=True, text=True)
            check(t.returncode == 0, f"pdftotext: {t.stderr[-200:]}")
            check_print(page, t.stdout)

        chrome(chromium, tmp, [f"--window-size={WIDE},900", "--hide-scrollbars",
                               "--screenshot=" + os.path.join(out, "desktop-1440.png"), "file://" + html])
        chrome(chromium, tmp, [f"--window-size={PHONE},844", "--hide-scrollbars",
                               "--screenshot=" + os.path.join(out, "phone-390.png"), "file://" + html])
        if shutil.which("pdftoppm") and os.path.exists(pdf):
            subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile", pdf,
                            os.path.join(out, "print-page1")], check=False)
        print(f"screenshots: {out}/desktop-1440.png phone-390.png print-page1.png")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
