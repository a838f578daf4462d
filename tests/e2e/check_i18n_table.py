#!/usr/bin/env python3
"""The message table against every catalog revision it was built from.

Usage: check_i18n_table.py TEST_I18N_TABLE SOURCE_DIR

1. src/common/messages_i18n.c is what tools/gen_messages_i18n.py makes from
   the committed catalog texts (no stale table).
2. Every catalog tools/catalogs.txt lists has its texts in
   tools/catalog_texts.json.
3. For every catalog, every message lockspan needs that the catalog
   translates (each lock target of a wait, deadlock or lock-failure line),
   and every severity word: the line the server would write, formatted here
   from the msgstr with this file's own printf (not the generator's
   patterns), must be read back by ls_i18n_translate / ls_i18n_severity_*
   as the same values formatted with the English msgid. test_i18n_table
   does the reading; this writes its cases.

No network and no .mo file needed: the texts are committed.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True

PRINTF = re.compile(r"%(?:(\d+)\$)?([-+ #0]*)(\d*)(?:\.(\d+))?(?:hh|h|ll|l|z)?([diuxsf%])")
NUMBER_BASE = {"d": 10, "i": 10, "u": 700, "x": 900}  # pid-like, oid-like values
TARGET_BASE = 500      # the numbers inside a lock target
TEXT_MARK = "w"        # %s values: "w1", "w2", ...


def conversions(fmt):
    """{argument number: conversion letter} of a printf format."""
    out, nxt = {}, 1
    for m in PRINTF.finditer(fmt):
        if m.group(5) == "%":
            continue
        num = int(m.group(1)) if m.group(1) else nxt
        nxt = num + 1
        out[num] = m.group(5)
    return out


def printf(fmt, args):
    """fmt formatted like C's printf with args (a list, argument 1 first);
    positional %N$ conversions as gettext translations use them."""
    nxt = [1]

    def one(m):
        num_s, flags, width, prec, conv = m.groups()
        if conv == "%":
            return "%"
        num = int(num_s) if num_s else nxt[0]
        nxt[0] = num + 1
        v = args[num - 1]
        spec = "%" + flags + width + ("." + prec if prec is not None else "")
        if conv in "diu":
            return (spec + "d") % int(v)
        if conv == "x":
            return (spec + "x") % int(v)
        if conv == "f":
            return (spec + "f") % float(v)
        return (spec + "s") % v
    return PRINTF.sub(one, fmt)


def values(fmt, base):
    """A value for each argument of fmt, by its conversion."""
    conv = conversions(fmt)
    out = []
    for n in range(1, max(conv, default=0) + 1):
        c = conv.get(n, "s")
        if c in NUMBER_BASE:
            out.append(NUMBER_BASE[c] + base + n)
        elif c == "f":
            out.append(1.25 * n)
        else:
            out.append("%s%d" % (TEXT_MARK, base + n))
    return out


def format_parts(parts, cat, en_parts, base):
    """(translated, English) of a message the server builds from parts,
    each part formatted with its own arguments (the parts' order)."""
    tr, en = "", ""
    for k, (p, e) in enumerate(zip(parts, en_parts)):
        vals = values(p, base + 10 * k)
        tr += printf(cat.get(p, p), vals)
        en += printf(e, vals)
    return tr, en


def message_cases(gen, cat):
    """[(translated line, English line)] of one catalog."""
    out = []
    for msgid, exp in gen.MESSAGES:
        parts = msgid if isinstance(msgid, tuple) else (msgid,)
        if not exp:
            if not all(p in cat for p in parts):
                continue
            en_parts = [gen.ENGLISH_AS.get(p, p) for p in parts]
            out.append(format_parts(parts, cat, en_parts, 0))
            continue
        # one expanded argument (a lock target, an "execute" word): each of
        # its msgids, formatted, is that argument's value
        (argno, subs), = exp.items()
        for sub in subs:
            sub_vals = values(sub, TARGET_BASE)
            tr_sub = printf(cat.get(sub, sub), sub_vals)
            en_sub = printf(sub, sub_vals)
            vals = values(msgid, 0)
            tr_vals, en_vals = list(vals), list(vals)
            tr_vals[argno - 1], en_vals[argno - 1] = tr_sub, en_sub
            en_fmt = gen.ENGLISH_AS.get(msgid, msgid)
            out.append((printf(cat.get(msgid, msgid), tr_vals), printf(en_fmt, en_vals)))
    return [(tr, en) for tr, en in out if tr != en]


def severity_cases(gen, cat):
    """[(line, English word, primary)] of one catalog, as elog.c writes
    them: "%s:  " around a primary word, the secondary msgid whole."""
    out = []
    for w in gen.PRIMARY:
        if cat.get(w) and cat[w] != w:
            out.append((cat[w] + ":  x", w, 1))
    for w in gen.SECONDARY:
        key = w + ":  "
        if cat.get(key) and cat[key] != key:
            out.append((cat[key] + "x", w, 0))
    return out


def escape(s):
    """A case's field on one line: backslash, tab and newline escaped (a
    translation can break a message over lines: fr, "...l'ordre\\nde la
    queue...")."""
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    binary, src = sys.argv[1], sys.argv[2]
    tools = os.path.join(src, "tools")
    sys.path.insert(0, tools)
    import gen_messages_i18n as gen

    failed = 0
    made = subprocess.run([sys.executable, os.path.join(tools, "gen_messages_i18n.py")],
                          capture_output=True, check=True).stdout
    with open(os.path.join(src, "src", "common", "messages_i18n.c"), "rb") as f:
        if f.read() != made:
            print("check_i18n_table: src/common/messages_i18n.c is not what "
                  "tools/gen_messages_i18n.py makes: regenerate it")
            failed += 1
    catalogs = gen.load_catalogs()
    lines, per_catalog = [], {}
    for pkg, ver, lang, cat in catalogs:
        name = "%s_%s" % (pkg, ver)
        if not cat:
            print("check_i18n_table: %s %s: no texts in tools/catalog_texts.json" % (name, lang))
            failed += 1
            continue
        by_line = {}
        for tr, en in message_cases(gen, cat):
            by_line.setdefault(tr, []).append(en)
        for tr, ens in by_line.items():
            lines.append(["M", lang, name, tr] + sorted(set(ens)))
        # a catalog can give two words one translation (ka: WARNING and
        # NOTICE): either English reads such a line
        by_word = {}
        for line, en, prim in severity_cases(gen, cat):
            by_word.setdefault((line, prim), []).append(en)
        for (line, prim), ens in by_word.items():
            lines.append(["S", lang, name, line, str(prim)] + sorted(set(ens)))
        per_catalog[(name, lang)] = len(by_line)
    print("check_i18n_table: %d catalogs (%d package versions, %d languages), %d cases"
          % (len(per_catalog), len({k[0] for k in per_catalog}),
             len({k[1] for k in per_catalog}), len(lines)))
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8", delete=False) as f:
        for fields in lines:
            f.write("\t".join(escape(x) for x in fields) + "\n")
        path = f.name
    try:
        rc = subprocess.run([binary, path]).returncode
    finally:
        os.unlink(path)
    if rc != 0 or failed:
        print("check_i18n_table: FAILED (%d own checks failed, test_i18n_table exit %d)"
              % (failed, rc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
