#!/usr/bin/env python3
"""Columns by name, tables declared once (issue 33).

  1. No read of a result column names a literal position: no
     ls_stmt_int64/double/text/text_or_null/isnull(q, 3) in src/ or
     reports/; a query of one column reads LS_ONLY_COLUMN, the others an
     LS_COLUMNS name (include/ls_columns.h) or a table's t__col
     (store_tables.h, corr_tables.h). The same holds for the report
     model's helpers that read a column (reports/model_int.h:
     ls_model_col_str/int/ms/ts(o, "key", q, 2)): a literal position
     there fails too, anywhere in src/ or reports/.
  2. Every ls_stmt_step( result is used (assigned, compared, returned):
     none is a statement of its own or cast to (void). The binds before
     it need not be checked one by one: store.c keeps the first bind that
     failed and ls_stmt_step returns it.
  3. No CREATE TABLE of a store table is written out by hand outside its
     declaration: every table of the store's schema (the ingest's,
     store_tables.h, and correlation's, corr_tables.h) is declared there,
     and no string literal of src/ or reports/ creates one of them by
     name, except a store upgrade step's frozen copy of an older shape
     (none today).
  4. An INSERT ... VALUES into a declared table is LS_INSERT_INTO (or
     LS_INSERT_INTO_IN / LS_INSERT_HEAD), its binds by column name
     (LS_PARAM(t, col)): no string literal of src/ names a declared table
     in an INSERT with a VALUES list of its own. Those not yet moved are
     KNOWN_HAND_INSERTS (counted apart, XFAIL; one that is gone prints
     XPASS: drop it from the list).
  5. Positional bind numbers (`ls_stmt_bind_*(st, 3, ...)`, `?3` in SQL)
     outside the declared INSERTs do not grow: at most BIND_BASELINE per
     file (the query parameters of SELECTs and UPDATEs still count by
     number; issue 33 lists them). A file not in BIND_BASELINE (at 0)
     names its parameters (`:tx`, declared once: include/ls_params.h) and
     binds them by LS_PARAM(q, name) or ls_stmt_param(): each `?N` or
     numbered bind in it fails, with its line.

Usage: check_columns.py SOURCE_DIR
"""
import os
import re
import sys

from lscheck import check, report
from check_layers import literals

READ = re.compile(r"\bls_stmt_(int64|double|text|text_or_null|isnull)\(\s*[^,()]+\s*,\s*\d+\s*\)")
# the report model's column readers: (object, key, statement, column)
MODEL_READ = re.compile(r"\bls_model_col_\w+\(\s*[^,()]+,\s*[^,()]+,\s*[^,()]+,\s*\d+\s*\)")
STEP = re.compile(r"\bls_stmt_step\s*\(")
BIND_NUM = re.compile(r"\b\w*bind\w*\(\s*[^,()]+\s*,\s*\d+\s*[,)]")
PARAM_NUM = re.compile(r"\?\d+")
DECL = re.compile(r"^#define LS_TABLE_(\w+)\((F, C, T)\)", re.M)
ALIAS = re.compile(r"^#define LS_TABLE_(\w+) LS_TABLE_\w+\s*$", re.M)

# INSERTs ... VALUES into declared tables not yet made from the
# declaration: (file, table).
KNOWN_HAND_INSERTS = set()  # none left (the last two, stmtstats.h's upserts, since 2026-12-07)

# Positional bind numbers per file (binds with a literal parameter
# number + `?N` in the file's SQL: the parameters of SELECTs, UPDATEs,
# DELETEs and INSERTs into temp tables) after the declared INSERTs moved
# to LS_PARAM (1154 on main 43a13e6, 789 then); a file may go lower, never
# higher: a change that adds a query's parameters raises its number here,
# and says why in its commit. A file done is removed from the list (at 0:
# its parameters named, ls_params.h): reports/, src/cli/main.c and
# correlation's summary.c, scope.c, intern.c, spantimes.c, holdparts.c
# since binds33 (2026-12-07); causes.c, findings_sum.c and findings_int.h
# since named33b; spans.c, txspans.c, dlprocs.c, paths.c and store.c
# since named33c; traces.c, findings.c, correlate.c and src/ingest/ingest.c
# since named33e.
BIND_BASELINE = {
    # none left: transactions.c since logpos38, retries.c since retry38b;
    # spans.c, txspans.c, dlprocs.c, paths.c and src/store/store.c since
    # named33c; holds.c, hidden.c and quiet.c since named33d; traces.c,
    # findings.c, correlate.c and src/ingest/ingest.c since named33e
}


def code_of(text):
    """The text without its comments, string literals and line breaks kept
    (so that a line number counts as in the file)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def sources(src):
    for top in ("src", "reports"):
        for d, _, names in os.walk(os.path.join(src, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.join(d, n)


def declared(src):
    tables = set()
    for h in ("store_tables.h", "corr_tables.h"):
        path = os.path.join(src, "src", "store", h)
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        tables |= {m.group(1) for m in DECL.finditer(text)}
        tables |= {m.group(1) for m in ALIAS.finditer(text)}
    return tables


def unused_step(code, pos):
    """Whether the ls_stmt_step( at pos is a statement of its own."""
    before = code[:pos].rstrip()
    if before.endswith("(void)"):
        return True
    return before == "" or before[-1] in ";{}" or re.search(r"\b(else|do)$", before) is not None


FROZEN = os.path.join("src", "store", "upgrade_steps.h")


def upgrade_frozen(src):
    """The store's upgrade steps are frozen SQL (upgrade_steps.h): no
    macro of a declaration, which would make an old store's tables with
    today's columns; store.c's steps are LS_UPGRADE_TO_N, one a version,
    in order."""
    text = open(os.path.join(src, FROZEN), encoding="utf-8").read()
    body = code_of(text)
    macros = sorted(set(re.findall(r"\b(LS_\w+)", body)) - {"LS_UPGRADE_STEPS_H"}
                    - set(re.findall(r"#define (LS_UPGRADE_TO_\d+)", body)))
    check(not macros, f"{FROZEN}: no macro in a frozen step ({', '.join(macros) or 'none'})")
    store = code_of(open(os.path.join(src, "src", "store", "store.c"), encoding="utf-8").read())
    m = re.search(r"store_upgrades\[\] = \{(.*?)\};", store, re.S)
    entries = [e.strip() for e in m.group(1).split(",") if e.strip()] if m else []
    want = [f"LS_UPGRADE_TO_{v}" for v in range(9, 9 + len(entries))]
    check(entries and entries == want,
          f"store.c's upgrade steps are the frozen ones, in order ({len(entries)} steps)")
    defined = re.findall(r"#define (LS_UPGRADE_TO_\d+)", body)
    check(defined == want, f"{FROZEN} defines each step once, in order ({len(defined)})")


def main():
    src = sys.argv[1]
    # the checks' own patterns, on text made for them
    for text, unused in (("x;\n    ls_stmt_step(q);", True), ("{ (void)ls_stmt_step(q);", True),
                         ("else ls_stmt_step(q);", True), ("rc = ls_stmt_step(q);", False),
                         ("if ((rc = ls_stmt_step(q)) < 0)", False)):
        check(unused_step(text, STEP.search(text).start()) == unused,
              f"an unused step is told from a used one: {text!r}")
    check(READ.search("ls_stmt_int64(x->q, 2)") and not READ.search("ls_stmt_int64(q, hq_id)"),
          "a literal position is told from a name")
    check(MODEL_READ.search('ls_model_col_str(row, "relation", q, 0)')
          and MODEL_READ.search("ls_model_col_ms(o, key, x->q, 12)")
          and not MODEL_READ.search('ls_model_col_str(row, "relation", q, sr_relation)')
          and not MODEL_READ.search("ls_model_col_int(o, c->key, q, pos)"),
          "a model helper's literal position is told from a name")
    check(BIND_NUM.search("ls_stmt_bind_int64(q, 3, v)")
          and not BIND_NUM.search("ls_stmt_bind_int64(q, LS_PARAM(txq, tx), v)")
          and PARAM_NUM.search("WHERE tx_id = ?3") and not PARAM_NUM.search("WHERE tx_id = :tx"),
          "a bind or parameter by number is told from one by name")
    tables = declared(src)
    check(len(tables) > 60, f"the declared tables found ({len(tables)})")
    names = "|".join(sorted(tables, key=len, reverse=True))
    create = re.compile(r"CREATE\s+((TEMP|TEMPORARY)\s+)?TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(main\.|temp\.)?(" + names
                        + r")\s*\(")
    insert = re.compile(r"INSERT\s+(OR\s+\w+\s+)?INTO\s+(main\.|temp\.|%s\.)?(" + names
                        + r")\s*\(")
    seen_inserts = set()
    steps = 0
    for path in sources(src):
        name = os.path.relpath(path, src)
        code = code_of(open(path, encoding="utf-8").read())
        for m in list(READ.finditer(code)) + list(MODEL_READ.finditer(code)):
            line = code.count("\n", 0, m.start()) + 1
            check(False, f"{name}:{line}: a column read by a literal position ({m.group(0)})")
        for m in STEP.finditer(code):
            steps += 1
            if re.search(r"\bint\s*$", code[:m.start()]):
                continue  # its definition or declaration
            line = code.count("\n", 0, m.start()) + 1
            check(not unused_step(code, m.start()), f"{name}:{line}: ls_stmt_step's result used")
        lits = list(literals(code))
        # adjacent literals are one string: join a statement's pieces
        joined, last = [], -9
        for line, lit in lits:
            if joined and line - last <= 1:
                joined[-1] = (joined[-1][0], joined[-1][1] + lit)
            else:
                joined.append((line, lit))
            last = line
        for line, lit in joined:
            m = create.search(lit)
            if name == FROZEN:
                continue  # an old version's tables as they were (upgrade_frozen)
            check(not m, f"{name}:{line}: CREATE TABLE {m.group(5) if m else ''} by hand"
                         " (make it from its declaration: LS_CREATE_TABLE)")
            for m in insert.finditer(lit):
                rest = lit[m.end():]
                if re.match(r"[^()]*\)\s*VALUES\b", rest):
                    seen_inserts.add((name, m.group(3)))
        nums = len(BIND_NUM.findall(code)) + sum(len(PARAM_NUM.findall(lit)) for _, lit in lits)
        base = BIND_BASELINE.get(name, 0)
        if base == 0:
            for m in BIND_NUM.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                check(False, f"{name}:{line}: a bind by number ({m.group(0)}) in a file of named"
                             " parameters: LS_PARAM(q, name) (include/ls_params.h)")
            for line, lit in lits:
                for m in PARAM_NUM.finditer(lit):
                    check(False, f"{name}:{line}: a numbered parameter {m.group(0)} in a file of"
                                 " named parameters: :name, declared by LS_PARAMS (ls_params.h)")
            continue
        check(nums <= base, f"{name}: {nums} positional bind numbers, at most {base}"
                            " (bind a declared INSERT by LS_PARAM(t, col))")
        if nums < base:
            print(f"INFO  {name}: {nums} positional bind numbers < {base}: lower BIND_BASELINE")
    check(steps > 100, f"ls_stmt_step calls found ({steps})")
    upgrade_frozen(src)
    for name, table in sorted(seen_inserts):
        if (name, table) in KNOWN_HAND_INSERTS:
            print(f"XFAIL {name}: INSERT INTO {table}(...) VALUES by hand (KNOWN_HAND_INSERTS)")
        else:
            check(False, f"{name}: INSERT INTO {table}(...) VALUES by hand"
                         " (LS_INSERT_INTO and LS_PARAM(t, col))")
    for name, table in sorted(KNOWN_HAND_INSERTS - seen_inserts):
        print(f"XPASS {name}: INSERT INTO {table} is made from its declaration now:"
              " drop it from KNOWN_HAND_INSERTS")
    return report()


if __name__ == "__main__":
    sys.exit(main())
