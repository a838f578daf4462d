#!/usr/bin/env python3
"""One story at the top, and the holder's state span-aware everywhere
(issue 36, items 1 and 2), on real samples (samples/README.md).

Usage: check_story.py LOCKSPAN PROJECT_DIR [CHROMIUM]

On samples/basic, realistic, app and hidden-traces (traced), each analyzed
into a store and reported as JSON, Markdown and HTML:
  - the JSON story names the top of the occupancy ranking (row_occupancy[0])
    with its share, and its compact ranking is the ranking's head in order;
  - the Markdown's and the HTML's first paragraph of the summary (the
    answer) names that path and its share, before any other section; the
    last stderr line names it too;
  - the HTML's contents link every section the page has;
  - hidden-traces: the two holds others waited for were spent in the span
    'HTTP POST payments-api /charge' (the correlation's hold_parts): JSON
    holds[].head_state is "in_span" with that span, root_blockers too; the
    holds table and the root blockers (HTML and Markdown) say "in HTTP POST
    payments-api /charge" and no row of them says idle in transaction; the
    longest-queue headline does not blame the application's idle time,
    and names the story's path as the one holding hot rows longest;
  - with CHROMIUM: at 1366x768 the answer and its ranking table end inside
    the first screen.
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import html as htmllib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

SPAN = "HTTP POST payments-api /charge"
SCREEN_W, SCREEN_H = 1366, 768


def inputs(root, name):
    d = os.path.join(root, "samples", name)
    ins = [os.path.join(d, "postgresql.log")]
    if os.path.exists(os.path.join(d, "traces.otlp.jsonl")):
        ins.append(os.path.join(d, "traces.otlp.jsonl"))
    prefix = open(os.path.join(d, "prefix.txt")).read()
    return ["--prefix", prefix] + ins


def text_of(fragment):
    return htmllib.unescape(re.sub(r"<[^>]+>", "", fragment))


def check_story(name, model, md, page, stderr):
    occ = model["row_occupancy"]
    story = model.get("story")
    check(occ and story, f"{name}: a story and an occupancy ranking")
    if not (occ and story):
        return
    top = occ[0]
    check(story["code_path"] == top["code_path"],
          f"{name}: story path {story['code_path']} is the ranking's top {top['code_path']}")
    check(abs(story["share_pct"] - top["share_pct"]) < 1e-9, f"{name}: story share")
    check([r["code_path"] for r in story["ranking"]] ==
          [r["code_path"] for r in occ[:len(story["ranking"])]],
          f"{name}: the compact ranking is the ranking's head, in order")
    share = f"{top['share_pct']:.1f} %"
    # Markdown: the summary opens with the answer.
    body = md.split("## Summary\n\n", 1)[1]
    first = re.sub(r"\\(.)", r"\1", body.split("\n\n", 1)[0]).replace("\n", " ")
    check(first.startswith(f"**{top['code_path']}** holds the hot rows longest") and share in first,
          f"{name}: Markdown opens with the answer: {first[:160]!r}")
    # HTML: the answer comes before every section but the summary.
    m = re.search(r'<p class="answer">(.*?)</p>', page, re.S)
    check(m is not None, f"{name}: HTML has the answer")
    if m:
        answer = text_of(m.group(1))
        check(answer.startswith(f"{top['code_path']} holds the hot rows longest") and share in answer,
              f"{name}: HTML answer names the top path: {answer[:160]!r}")
        check(m.start() < page.index('<section id="findings">'),
              f"{name}: the answer is before the findings")
    last = stderr.strip().splitlines()[-1]
    check(f"top: {top['code_path']} holds hot rows longest" in last,
          f"{name}: the last stderr line agrees: {last!r}")
    # The contents: every section of the page.
    nav = page.split("<nav>", 1)[1].split("</nav>", 1)[0]
    for sec in re.findall(r'<section id="([^"]+)">', page):
        check(f'href="#{sec}"' in nav, f"{name}: contents link #{sec}")


def section(page, sec):
    return page.split(f'<section id="{sec}">', 1)[1].split("</section>", 1)[0]


def check_span_state(model, md, page):
    holds = [h for h in model["holds"] if h["waits"] > 0]
    check(len(holds) == 2, f"hidden-traces: 2 holds others waited for ({len(holds)})")
    for h in holds:
        check(h["head_state"] == "in_span" and h.get("head_span") == SPAN,
              f"hidden-traces: hold of pid {h['pid']} in the span, not "
              f"{h['head_state']} / {h.get('head_span')}")
    for r in model["root_blockers"]:
        check(r.get("head_state") == "in_span" and r.get("head_span") == SPAN,
              f"hidden-traces: root blocker pid {r['pid']}: {r.get('head_state')}")
    # The rows of the holds table and the facts listed under each root
    # blocker (not the sections' intros, which name every state).
    for sec, part in (("holds", r"<tbody>.*?</tbody>"), ("root-blockers", r"<ul>.*?</ul>")):
        t = " ".join(text_of(x) for x in re.findall(part, section(page, sec), re.S))
        check(t.count(f"in {SPAN}") >= 2, f"hidden-traces: HTML {sec} says in {SPAN}")
        check("idle in transaction" not in t,
              f"hidden-traces: HTML {sec} says no holder was idle in transaction")
    mdtxt = re.sub(r"\\(.)", r"\1", md)
    holds_md = mdtxt.split("## Longest holds", 1)[1].split("\n## ", 1)[0]
    roots_md = mdtxt.split("## Root blockers", 1)[1].split("\n## ", 1)[0]
    check(holds_md.count(f"| in {SPAN} |") == 2, "hidden-traces: Markdown holds say the span")
    check(roots_md.count(f"it was mostly in {SPAN}") == 2,
          "hidden-traces: Markdown root blockers say the span")
    head = re.search(r"<li><b>Longest queue behind one transaction.*?</li>", page, re.S)
    check(head is not None, "hidden-traces: the longest-queue headline")
    if head:
        t = text_of(head.group(0))
        check("did something else" not in t and f"mostly in {SPAN}" in t,
              f"hidden-traces: the headline says the span: {t[:300]!r}")
        check(model["story"]["code_path"] in t,
              "hidden-traces: the headline names the path holding hot rows longest")


def first_screen(chromium, page_path, tmp):
    """The bottom of the answer's ranking table at 1366x768, in CSS px."""
    src = open(page_path, encoding="utf-8").read()
    src = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", src)
    js = ("var t=document.querySelector('p.answer');var n=t;while(n&&n.tagName!=='TABLE')"
          "{n=n.nextElementSibling;if(n&&n.querySelector&&n.querySelector('table'))"
          "{n=n.querySelector('table');break;}}var p=document.createElement('pre');"
          "p.id='probe';p.textContent=JSON.stringify({answer:t.getBoundingClientRect().top,"
          "table:n?n.getBoundingClientRect().bottom:-1});document.body.appendChild(p);")
    copy = os.path.join(tmp, "probe.html")
    open(copy, "w", encoding="utf-8").write(src.replace("</body>", f"<script>{js}</script></body>"))
    profile = tempfile.mkdtemp(dir=tmp)
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", f"--user-data-dir={profile}",
                        f"--window-size={SCREEN_W},{SCREEN_H}", "--dump-dom",
                        "file://" + copy], capture_output=True, text=True, timeout=90,
                       env=dict(os.environ, HOME=profile))
    m = re.search(r'<pre id="probe">(\{[^<]*\})</pre>', p.stdout)
    return json.loads(htmllib.unescape(m.group(1))) if m else None


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else shutil.which("chromium")
    tmp = tempfile.mkdtemp(prefix="lockspan-story.")
    try:
        for name in ("basic", "realistic", "app", "hidden-traces"):
            out = {f: os.path.join(tmp, f"{name}.{f}") for f in ("json", "md", "html")}
            p = subprocess.run([lockspan, "analyze", "--db", os.path.join(tmp, name + ".db"),
                                "-o", out["json"], "-o", out["md"], "-o", out["html"]] +
                               inputs(root, name), capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
            if p.returncode != 0:
                continue
            model = json.load(open(out["json"]))
            md = open(out["md"], encoding="utf-8").read()
            page = open(out["html"], encoding="utf-8").read()
            check_story(name, model, md, page, p.stderr)
            if name == "hidden-traces":
                check_span_state(model, md, page)
            if name == "app" and chromium:
                r = first_screen(chromium, out["html"], tmp)
                check(r is not None, "app: the browser probe ran")
                if r:
                    check(0 < r["answer"] < SCREEN_H and 0 < r["table"] <= SCREEN_H,
                          f"app: the answer and its ranking in the first {SCREEN_W}x{SCREEN_H} "
                          f"screen: {r}")
            elif name == "app":
                print("note: no chromium, the first-screen check was not run")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
