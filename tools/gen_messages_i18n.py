#!/usr/bin/env python3
"""Generate src/ingest/messages_i18n.c: the translations of the PostgreSQL
messages lockspan classifies, read from the server's gettext catalogs.

Usage: tools/gen_messages_i18n.py [LOCALEDIR] > src/ingest/messages_i18n.c
LOCALEDIR defaults to /usr/share/locale (Debian's postgresql-15 installs
LOCALEDIR/LANG/LC_MESSAGES/postgres-15.mo). Standard library only: the .mo
files are read directly (GNU gettext binary format, little-endian).

Each message becomes a pattern: literal bytes, with every printf conversion
turned into a typed capture (\\x1f, type, argument number: d = signed
decimal, u = unsigned decimal, f = decimal fraction, s = any text), and an
English template (\\x1f, argument number) in the msgid's own argument order,
so that a translated line can be written back in English (lc_messages = C).
A %s that DescribeLockTag() or an "execute" word fills in is expanded into
each of its own translations.
"""
import glob
import os
import re
import struct
import subprocess
import sys

DOMAIN = "postgres-15"

LANG_NAMES = {
    "de": "German", "es": "Spanish", "fr": "French", "it": "Italian", "ja": "Japanese",
    "ka": "Georgian", "ko": "Korean", "ru": "Russian", "sv": "Swedish", "uk": "Ukrainian",
    "zh_CN": "Chinese (Simplified)", "zh_TW": "Chinese (Traditional)",
}

PRIMARY = ["LOG", "ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "DEBUG"]
SECONDARY = ["DETAIL", "HINT", "QUERY", "CONTEXT", "LOCATION", "STATEMENT"]

# DescribeLockTag() (lmgr.c): the lock target a wait or deadlock line names.
TARGETS = [
    "relation %u of database %u",
    "extension of relation %u of database %u",
    "pg_database.datfrozenxid of database %u",
    "page %u of relation %u of database %u",
    "tuple (%u,%u) of relation %u of database %u",
    "transaction %u",
    "virtual transaction %d/%u",
    "speculative token %u of transaction %u",
    "object %u of class %u of database %u",
    "user lock [%u,%u,%u]",
    "advisory lock [%u,%u,%u,%u]",
]
EXECUTE = ["execute fetch from", "execute"]

# (msgid, {argument number: list of msgids it is expanded with})
MESSAGES = [(t, {}) for t in TARGETS] + [
    ("process %d still waiting for %s on %s after %ld.%03d ms", {3: TARGETS}),
    ("process %d acquired %s on %s after %ld.%03d ms", {3: TARGETS}),
    ("process %d avoided deadlock for %s on %s by rearranging queue order after %ld.%03d ms",
     {3: TARGETS}),
    ("process %d detected deadlock while waiting for %s on %s after %ld.%03d ms", {3: TARGETS}),
    ("process %d failed to acquire %s on %s after %ld.%03d ms", {3: TARGETS}),
    ("Process %d waits for %s on %s; blocked by process %d.", {3: TARGETS}),
    ("Process %d: %s", {}),
    ("deadlock detected", {}),
    ("canceling statement due to lock timeout", {}),
    ("canceling statement due to statement timeout", {}),
    ("canceling statement due to user request", {}),
    ("terminating connection due to idle-in-transaction timeout", {}),
    ("could not obtain lock on row in relation \"%s\"", {}),
    ("could not obtain lock on relation \"%s\"", {}),
    ("could not obtain lock on relation \"%s.%s\"", {}),
    ("could not serialize access due to read/write dependencies among transactions", {}),
    ("could not serialize access due to concurrent update", {}),
    ("could not serialize access due to concurrent delete", {}),
    ("duration: %s ms  statement: %s", {}),
    ("duration: %s ms  %s %s%s%s: %s", {2: EXECUTE}),
    ("duration: %s ms  parse %s: %s", {}),
    ("duration: %s ms  bind %s%s%s: %s", {}),
    ("duration: %s ms", {}),
    ("statement: %s", {}),
    ("%s %s%s%s: %s", {1: EXECUTE}),
    ("parameters: %s", {}),
    ("connection received: host=%s port=%s", {}),
    ("connection received: host=%s", {}),
    (("connection authorized: user=%s", " database=%s", " application_name=%s"), {}),
    (("connection authorized: user=%s", " database=%s"), {}),
    ("disconnection: session time: %d:%02d:%02d.%03d user=%s database=%s host=%s%s%s", {}),
    ("while updating tuple (%u,%u) in relation \"%s\"", {}),
    ("while deleting tuple (%u,%u) in relation \"%s\"", {}),
    ("while locking tuple (%u,%u) in relation \"%s\"", {}),
    ("while locking updated version (%u,%u) of tuple in relation \"%s\"", {}),
    ("while inserting index tuple (%u,%u) in relation \"%s\"", {}),
    ("while checking uniqueness of tuple (%u,%u) in relation \"%s\"", {}),
    ("while rechecking updated tuple (%u,%u) in relation \"%s\"", {}),
    ("while checking exclusion constraint on tuple (%u,%u) in relation \"%s\"", {}),
]

CONV = re.compile(r"%(?:(\d+)\$)?[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z)?([diuxsfm%])")


def read_mo(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic == 0x950412DE else ">"
    _, n, orig, trans = struct.unpack(end + "4I", data[4:20])
    out = {}
    for i in range(n):
        ol, oo = struct.unpack(end + "2I", data[orig + 8 * i:orig + 8 * i + 8])
        tl, to = struct.unpack(end + "2I", data[trans + 8 * i:trans + 8 * i + 8])
        key = data[oo:oo + ol].split(b"\0")[0].decode("utf-8")
        out[key] = data[to:to + tl].split(b"\0")[0].decode("utf-8")
    return out


def tokens(fmt):
    """[('lit', text) | ('arg', number, type)], numbers from 1 in msgid order."""
    out, pos, nextarg = [], 0, 1
    for m in CONV.finditer(fmt):
        if m.start() > pos:
            out.append(("lit", fmt[pos:m.start()]))
        pos = m.end()
        conv = m.group(2)
        if conv == "%":
            out.append(("lit", "%"))
            continue
        if conv == "m":
            raise ValueError("%m not supported: " + fmt)
        num = int(m.group(1)) if m.group(1) else nextarg
        nextarg = num + 1
        typ = {"d": "d", "i": "d", "u": "u", "x": "s", "s": "s", "f": "f"}[conv]
        if conv in "di" and "%0" in m.group(0):
            typ = "u"
        out.append(("arg", num, typ))
    if pos < len(fmt):
        out.append(("lit", fmt[pos:]))
    return out


def nargs(toks):
    return max([t[1] for t in toks if t[0] == "arg"], default=0)


def expand(toks, argno, sub, base):
    """Replace argument argno with the tokens of sub, renumbered from base."""
    out = []
    for t in toks:
        if t[0] == "arg" and t[1] == argno:
            out += [("arg", s[1] + base, s[2]) if s[0] == "arg" else s for s in sub]
        else:
            out.append(t)
    return out


def variants(en_fmt, tr_fmt, expansions, cat):
    """Every (English tokens, translated tokens) the expansions give."""
    en, tr = tokens(en_fmt), tokens(tr_fmt)
    if sorted(t[1] for t in en if t[0] == "arg") != sorted(t[1] for t in tr if t[0] == "arg"):
        return []
    pairs = [(en, tr)]
    for argno, subs in expansions.items():
        nxt = []
        for en_t, tr_t in pairs:
            base = nargs(en_t)
            for sub in subs:
                if sub not in cat:
                    continue
                nxt.append((expand(en_t, argno, tokens(sub), base),
                            expand(tr_t, argno, tokens(cat[sub]), base)))
        pairs = nxt
    return pairs


def c_str(s):
    out = []
    for b in s.encode("utf-8"):
        if b in (0x22, 0x5C):
            out.append("\\" + chr(b))
        elif 0x20 <= b < 0x7F and b != 0x3F:
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def encode(toks, typed):
    s = ""
    for t in toks:
        if t[0] == "lit":
            s += t[1]
        else:
            s += "\x1f" + (t[2] if typed else "") + chr(ord("0") + t[1])
    return s


def main():
    localedir = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/locale"
    paths = sorted(glob.glob(os.path.join(localedir, "*", "LC_MESSAGES", DOMAIN + ".mo")))
    langs, sevs, msgs = [], [], []
    for path in paths:
        lang = path.split(os.sep)[-3]
        cat = read_mo(path)
        header = dict(l.split(": ", 1) for l in cat.get("", "").splitlines() if ": " in l)
        li = len(langs)
        langs.append((lang, LANG_NAMES.get(lang, lang), path, header.get("PO-Revision-Date", "?")))
        for w in PRIMARY + SECONDARY:
            key = w if w in PRIMARY else w + ":  "
            tr = cat.get(key)
            if not tr:
                continue
            word = tr.rstrip(" ")
            if not word.endswith(":") and w not in PRIMARY:
                continue
            if w not in PRIMARY:
                word = word[:-1]
            if word != w and word:
                sevs.append((word, w, li, w in PRIMARY))
        for msgid, exp in MESSAGES:
            parts = msgid if isinstance(msgid, tuple) else (msgid,)
            # A message the catalog leaves in English still names its lock
            # target in the language (Georgian: "... on ტრანზაქცია 744; ...").
            if not exp and not all(p in cat for p in parts):
                continue
            tr_fmt = "".join(cat.get(p, p) for p in parts)
            for en, tr in variants("".join(parts), tr_fmt, exp, cat):
                if tr == en:
                    continue
                msgs.append((li, encode(tr, True), encode(en, False)))
    try:
        pkg = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "postgresql-15"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        pkg = ""
    w = sys.stdout.write
    w("/*\n * messages_i18n.c -- GENERATED by tools/gen_messages_i18n.py; do not edit.\n")
    w(" * Regenerate: tools/gen_messages_i18n.py > src/ingest/messages_i18n.c\n")
    w(" * From the gettext catalogs of %s:\n" % (pkg or "PostgreSQL 15"))
    for lang, name, path, rev in langs:
        w(" *   %-6s %s (PO-Revision-Date %s)\n" % (lang, path, rev))
    w(" * Patterns: literal bytes; \\x1f + type (d u f s) + argument number is a\n")
    w(" * capture. English: \\x1f + argument number. See ls_i18n.h.\n */\n")
    w('#include "ls_i18n.h"\n\n')
    w("const ls_i18n_lang ls_i18n_langs[] = {\n")
    for lang, name, _, _ in langs:
        w("    {%s, %s},\n" % (c_str(lang), c_str(name)))
    w("};\nconst int ls_i18n_nlangs = %d;\n\n" % len(langs))
    w("const ls_i18n_sev ls_i18n_sevs[] = {\n")
    for word, en, li, prim in sevs:
        w("    {%s, %d, %s, %d, %d},\n" % (c_str(word), len(word.encode()), c_str(en), li,
                                         1 if prim else 0))
    w("};\nconst int ls_i18n_nsevs = %d;\n\n" % len(sevs))
    w("const ls_i18n_msg ls_i18n_msgs[] = {\n")
    for li, pat, en in msgs:
        w("    {%d, %s,\n     %s},\n" % (li, c_str(pat), c_str(en)))
    w("};\nconst int ls_i18n_nmsgs = %d;\n" % len(msgs))


if __name__ == "__main__":
    main()
