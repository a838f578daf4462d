#!/usr/bin/env python3
"""The folders show the pipeline and never climb back (issue 33): the
report reads the store's views through the public headers and runs no
analysis.

  1. Every `#include "..."` of a reports/ file names a header of include/
     or of reports/ (the build compiles reports/ with that include path
     only: CMakeLists.txt's lockspan_report).
  2. No public header (include/*.h) carries SQL: no string literal of
     theirs holds an SQL statement or clause (SELECT, FROM, WHERE, CASE
     WHEN, JOIN, INSERT, UPDATE, DELETE, CREATE, DROP).
  3. No reports/ file writes to the store: none of its string literals
     creates, inserts, updates, deletes or drops (temp tables included),
     and none calls the analysis (ls_correlate*, ls_findings_*).
  4. No folder calls back up the pipeline: each folder calls only the
     functions (ls_*) defined in itself and in the folders it may use
     (USES below); a call into any other folder is a failure naming the
     caller, the callee and the folder defining it.

Usage: check_layers.py SOURCE_DIR
"""
import os
import re
import sys

from lscheck import check, report

SQL_CLAUSE = re.compile(r"\b(SELECT|FROM|WHERE|CASE\s+WHEN|JOIN|INSERT|UPDATE|DELETE|CREATE|DROP)\b")
# A statement that writes, not the word in a label ("Also every INSERT into").
SQL_WRITE = re.compile(r"\b(CREATE\s+(TEMP|TEMPORARY|TABLE|INDEX|VIEW|UNIQUE|TRIGGER)"
                       r"|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+[\w.]+\s+SET|DELETE\s+FROM"
                       r"|DROP\s+(TABLE|INDEX|VIEW|TRIGGER)|REPLACE\s+INTO|ALTER\s+TABLE)\b")
ANALYSIS_CALL = re.compile(r"\b(ls_correlate\w*|ls_findings_\w+)\s*\(")


# What each folder may call besides itself: the pipeline, input -> parser
# -> classifier -> store -> correlation -> report, with src/common/ under
# all of them and src/cli/ over all of them. src/ingest/ drives the parsers
# and writes the store; the store cuts transactions itself (txcut.c).
USES = {
    "src/common": set(),
    "parsers": {"src/common"},
    "src/store": {"src/common"},
    "src/ingest": {"src/common", "parsers", "src/store"},
    "src/correlate/decide": {"src/common"},
    "src/correlate": {"src/common", "src/store", "src/correlate/decide"},
    # The per-hold "at least" of input.logging is still applied by the
    # report (ls_logcover_open_end, a pure decision): issue 33 lists it.
    "reports": {"src/common", "src/store", "src/correlate/decide"},
    "src/cli": {"src/common", "parsers", "src/store", "src/ingest", "src/correlate",
                "src/correlate/decide", "reports"},
}
DEFINITION = re.compile(r"^(?!static\b)(?:[A-Za-z_][\w]*[\s\*]+)+(ls_\w+)\s*\([^;{]*\)\s*\{",
                        re.M)
CALL = re.compile(r"\b(ls_\w+)\s*\(")


def folder_calls(src):
    """Each call of a function defined in another folder: (caller file,
    callee, callee's folder)."""
    defined, texts = {}, {}
    for folder in USES:
        d = os.path.join(src, folder)
        for path in files(d, ".c"):
            code = code_of(open(path, encoding="utf-8", errors="replace").read())
            code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)
            texts[path] = (folder, code)
            for m in DEFINITION.finditer(code):
                defined.setdefault(m.group(1), folder)
    for path, (folder, code) in sorted(texts.items()):
        for name in sorted({m.group(1) for m in CALL.finditer(code)}):
            d = defined.get(name)
            if d is not None and d != folder:
                yield os.path.relpath(path, src), folder, name, d


def code_of(text):
    """The text without its comments (string literals kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text[i] == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def literals(code):
    """The string literals of code, each with its line number."""
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', code):
        yield code.count("\n", 0, m.start()) + 1, m.group(1)


def files(d, exts):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(exts))


def main():
    src = sys.argv[1]
    include = os.path.join(src, "include")
    reports = os.path.join(src, "reports")
    public = set(os.listdir(include))
    own = set(os.listdir(reports))

    report_files = files(reports, (".c", ".h"))
    check(len(report_files) > 10, f"reports/ has its files ({len(report_files)})")
    for path in report_files:
        name = os.path.relpath(path, src)
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            h = m.group(1)
            check(h in public or h in own,
                  f"{name} includes \"{h}\", a header of include/ or reports/")
        code = code_of(text)
        for line, lit in literals(code):
            w = SQL_WRITE.search(lit)
            check(not w, f"{name}:{line}: the report writes nothing ({w.group(0) if w else ''}"
                         f" in \"{lit[:60]}\")")
        for m in ANALYSIS_CALL.finditer(code):
            check(False, f"{name}: the report calls no analysis ({m.group(1)})")

    calls = list(folder_calls(src))
    check(len(calls) > 100, f"calls between folders found ({len(calls)})")
    for name, folder, callee, where in calls:
        check(where in USES[folder],
              f"{name} calls {callee} of {where}/: {folder}/ may call only "
              f"{', '.join(sorted(USES[folder])) or 'itself'}")

    headers = files(include, ".h")
    check(len(headers) > 10, f"include/ has its headers ({len(headers)})")
    for path in headers:
        name = os.path.relpath(path, src)
        code = code_of(open(path, encoding="utf-8").read())
        for line, lit in literals(code):
            m = SQL_CLAUSE.search(lit)
            check(not m, f"{name}:{line}: a public header carries no SQL"
                         f" ({m.group(0) if m else ''} in \"{lit[:60]}\")")
    return report()


if __name__ == "__main__":
    sys.exit(main())
