#!/usr/bin/env python3
"""Generate src/common/messages_i18n.c: the translations of the PostgreSQL
messages lockspan classifies, from every catalog revision servers run.

Usage:
  tools/gen_messages_i18n.py > src/common/messages_i18n.c
      the C tables, from the committed texts (tools/catalog_texts.json);
  tools/gen_messages_i18n.py extract FETCHDIR
      rewrites tools/catalogs.txt and tools/catalog_texts.json from the
      catalogs tools/fetch_catalogs.sh put in FETCHDIR (every postgres-NN.mo
      of every postgresql-NN package revision Debian's archive carries).

Standard library only: the .mo files are read directly (GNU gettext binary
format). tools/catalogs.txt lists each catalog read (package, version,
language, sha256 of the .mo, its PO-Revision-Date); tools/catalog_texts.json
holds, per language and msgid lockspan needs, each distinct translation and
the package versions whose catalog has it. Both are committed, so the table
and tests/unit/check_i18n_table.py need neither the network nor the .mo files.

Each message becomes a pattern: literal bytes, with every printf conversion
turned into a typed capture (\\x1f, type, argument number: d = signed
decimal, u = unsigned decimal, f = decimal fraction, s = any text), and an
English template (\\x1f, argument number) in the msgid's own argument order,
so that a translated line can be written back in English (lc_messages = C).
A %s that DescribeLockTag() or an "execute" word fills in is expanded into
each of its own translations in the same catalog. Each distinct pattern of a
language is emitted once, grouped by language, those with the most literal
text first (stable: then the list's catalog order), so the table is small
and the same from the same texts.
"""
import hashlib
import json
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG_LIST = os.path.join(HERE, "catalogs.txt")
CATALOG_TEXTS = os.path.join(HERE, "catalog_texts.json")

LANG_NAMES = {
    "cs": "Czech", "de": "German", "el": "Greek", "es": "Spanish", "fr": "French",
    "he": "Hebrew", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ka": "Georgian",
    "ko": "Korean", "pl": "Polish", "pt_BR": "Portuguese (Brazil)", "ro": "Romanian",
    "ru": "Russian", "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese",
    "zh_CN": "Chinese (Simplified)", "zh_TW": "Chinese (Traditional)",
}

PRIMARY = ["LOG", "ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "DEBUG"]
SECONDARY = ["DETAIL", "HINT", "QUERY", "CONTEXT", "LOCATION", "STATEMENT"]
# Every English severity word the server writes (elog.c error_severity()):
# a translation equal to one of them would misread English lines.
ENGLISH_WORDS = set(PRIMARY + SECONDARY) | {"DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5"}

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
    # 18: log_lock_failures (a NOWAIT or SKIP LOCKED lock not granted)
    ("process %d could not obtain %s on %s", {3: TARGETS}),
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
    ("Parameters: %s", {}),  # 16+
    ("connection received: host=%s port=%s", {}),
    ("connection received: host=%s", {}),
    (("connection authorized: user=%s", " database=%s", " application_name=%s"), {}),
    (("connection authorized: user=%s", " database=%s"), {}),
    # 13.x catalogs of some languages (ko, ja) hold these whole
    ("connection authorized: user=%s database=%s application_name=%s", {}),
    ("connection authorized: user=%s database=%s", {}),
    # 18: log_connections = 'all'
    ("connection authenticated: user=\"%s\" method=%s (%s:%d)", {}),
    ("connection authenticated: identity=\"%s\" method=%s (%s:%d)", {}),
    ("connection ready: setup total=%.3f ms, fork=%.3f ms, authentication=%.3f ms", {}),
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

# A msgid written back as another English text: 16+ has "Parameters: %s"
# where 15 and before have "parameters: %s", and several catalogs (de, ja,
# ka, ko, zh) translate both alike, so a translated line cannot tell them
# apart; lockspan reads the older form.
ENGLISH_AS = {"Parameters: %s": "parameters: %s"}

CONV = re.compile(r"%(?:(\d+)\$)?[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z)?([diuxsfm%])")


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
                # a target the catalog leaves untranslated is written in English
                nxt.append((expand(en_t, argno, tokens(sub), base),
                            expand(tr_t, argno, tokens(cat.get(sub, sub)), base)))
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


def severity_keys():
    """The msgids of the severity words: "ERROR", and "DETAIL:  " for the
    secondary fields (elog.c appends two spaces)."""
    return PRIMARY + [w + ":  " for w in SECONDARY]


def needed_msgids():
    """Every msgid whose translation the table or its test reads."""
    out = set(severity_keys()) | set(TARGETS) | set(EXECUTE)
    for msgid, _ in MESSAGES:
        out |= set(msgid if isinstance(msgid, tuple) else (msgid,))
    return out


def read_mo(path):
    """{msgid: msgstr} of a GNU .mo file (first plural form; context kept
    in the msgid as gettext stores it)."""
    with open(path, "rb") as f:
        data = f.read()
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


def extract(fetchdir):
    """Read FETCHDIR/catalogs.txt (tools/fetch_catalogs.sh) and its .mo
    files; write tools/catalogs.txt and tools/catalog_texts.json."""
    rows, texts = [], {}
    with open(os.path.join(fetchdir, "catalogs.txt")) as f:
        listed = [l.split() for l in f if l.strip()]
    listed.sort(key=lambda r: (r[0], r[1], r[2]))
    keys = needed_msgids()
    for pkg, ver, lang, sha, rel in listed:
        path = os.path.join(fetchdir, "root", rel)
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != sha:
                sys.exit("gen_messages_i18n: %s: sha256 differs from catalogs.txt" % path)
        cat = read_mo(path)
        header = dict(l.split(": ", 1) for l in cat.get("", "").splitlines() if ": " in l)
        rev = header.get("PO-Revision-Date", "?").replace(" ", "_")
        rows.append("%s %s %s %s %s %s" % (pkg, ver, lang, sha, rev, os.path.basename(path)))
        for msgid in sorted(keys & cat.keys()):
            variants_of = texts.setdefault(lang, {}).setdefault(msgid, [])
            for v in variants_of:
                if v[0] == cat[msgid]:
                    v[1].append(ver)
                    break
            else:
                variants_of.append([cat[msgid], [ver]])
    with open(CATALOG_LIST, "w") as f:
        f.write("# The gettext catalogs tools/gen_messages_i18n.py read (tools/fetch_catalogs.sh):\n")
        f.write("# package version language sha256(.mo) PO-Revision-Date file\n")
        f.write("\n".join(rows) + "\n")
    with open(CATALOG_TEXTS, "w") as f:
        json.dump(texts, f, ensure_ascii=False, indent=0, sort_keys=True)
        f.write("\n")


def load_catalogs():
    """[(package, version, lang, {msgid: msgstr})] in tools/catalogs.txt's
    order, rebuilt from tools/catalog_texts.json."""
    with open(CATALOG_TEXTS) as f:
        texts = json.load(f)
    out = []
    with open(CATALOG_LIST) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            pkg, ver, lang = line.split()[:3]
            cat = {}
            for msgid, variants_of in texts.get(lang, {}).items():
                for msgstr, vers in variants_of:
                    if ver in vers:
                        cat[msgid] = msgstr
            out.append((pkg, ver, lang, cat))
    return out


def severities(cat):
    """[(translated word, English word, primary?, tight?)] of one catalog;
    tight: a secondary word whose msgstr ends in its colon, with none of
    the msgid's two spaces (tr "AYRINTI:", ko "쿼리:"), so that the server
    writes the message right after the colon."""
    out = []
    for w in PRIMARY + SECONDARY:
        key = w if w in PRIMARY else w + ":  "
        tr = cat.get(key)
        if not tr:
            continue
        word = tr.rstrip(" ")
        if not word.endswith(":") and w not in PRIMARY:
            continue
        tight = w not in PRIMARY and tr == word
        if w not in PRIMARY:
            word = word[:-1]
        if word and word != w and word not in ENGLISH_WORDS:
            out.append((word, w, w in PRIMARY, tight))
    return out


def patterns(cat):
    """[(typed pattern, English template)] of one catalog."""
    out = []
    for msgid, exp in MESSAGES:
        parts = msgid if isinstance(msgid, tuple) else (msgid,)
        # A message the catalog leaves in English still names its lock
        # target in the language (Georgian: "... on ტრანზაქცია 744; ...").
        if not exp and not all(p in cat for p in parts):
            continue
        tr_fmt = "".join(cat.get(p, p) for p in parts)
        en_fmt = "".join(parts)
        for en, tr in variants(ENGLISH_AS.get(en_fmt, en_fmt), tr_fmt, exp, cat):
            if tr != en:
                out.append((encode(tr, True), encode(en, False)))
    return out


def literal_len(pattern):
    """Bytes of a pattern outside its captures (3 bytes each)."""
    return len(pattern.encode("utf-8")) - 3 * pattern.count("\x1f")


def build(catalogs):
    """The languages (sorted by code), each with its severity words and its
    distinct patterns (the first catalog's English where two msgids give
    one pattern)."""
    langs = []
    for code in sorted({c[2] for c in catalogs}):
        revs, sevs, msgs, seen, warned = [], [], [], {}, set()
        for pkg, ver, lang, cat in catalogs:
            if lang != code:
                continue
            revs.append(ver)
            for word, en, prim, tight in severities(cat):
                # one entry a word, tight when any revision writes it so
                old = next((i for i, v in enumerate(sevs) if v[:3] == (word, en, prim)), None)
                if old is None:
                    sevs.append((word, en, prim, tight))
                elif tight:
                    sevs[old] = (word, en, prim, True)
            for pat, en in patterns(cat):
                if pat not in seen:
                    seen[pat] = en
                    msgs.append((pat, en))
                elif seen[pat] != en and (pat, en) not in warned:
                    # fr, ko: "row in relation" and "relation" alike
                    warned.add((pat, en))
                    sys.stderr.write("gen_messages_i18n: %s %s: one text for two messages: %r\n"
                                     % (code, ver, en))
        # Most literal text first: where two patterns match one line, the one
        # that explains more of it as fixed text is the message (sv: a wait
        # on "spekulativ token %u för transaktion %u", not one on
        # "transaktion %u" with the lock mode swallowing the rest; zh_CN
        # 13.x: "...上的%s失败" (failed to acquire) before "...上的%s").
        msgs.sort(key=lambda m: -literal_len(m[0]))
        langs.append((code, LANG_NAMES.get(code, code), revs, sevs, msgs))
    return langs


def write_c(langs):
    w = sys.stdout.write
    w("/*\n * messages_i18n.c -- GENERATED by tools/gen_messages_i18n.py; do not edit.\n")
    w(" * Regenerate: tools/gen_messages_i18n.py > src/common/messages_i18n.c\n")
    w(" * From the gettext catalogs listed in tools/catalogs.txt (the texts read:\n")
    w(" * tools/catalog_texts.json), per language the package versions:\n")
    for code, _, revs, _, _ in langs:
        w(" *   %-6s %s\n" % (code, " ".join(revs)))
    w(" * Patterns: literal bytes; \\x1f + type (d u f s) + argument number is a\n")
    w(" * capture. English: \\x1f + argument number. See ls_i18n.h.\n */\n")
    w('#include "ls_i18n.h"\n\n')
    w("const ls_i18n_lang ls_i18n_langs[] = {\n")
    first = 0
    for code, name, _, _, msgs in langs:
        w("    {%s, %s, %d, %d},\n" % (c_str(code), c_str(name), first, len(msgs)))
        first += len(msgs)
    w("};\nconst int ls_i18n_nlangs = %d;\n\n" % len(langs))
    w("const ls_i18n_sev ls_i18n_sevs[] = {\n")
    nsevs = 0
    for li, (_, _, _, sevs, _) in enumerate(langs):
        for word, en, prim, tight in sevs:
            w("    {%s, %d, %s, %d, %d, %d},\n" % (c_str(word), len(word.encode()), c_str(en), li,
                                                 1 if prim else 0, 1 if tight else 0))
            nsevs += 1
    w("};\nconst int ls_i18n_nsevs = %d;\n" % nsevs)
    w("_Static_assert(sizeof(ls_i18n_sevs) / sizeof(ls_i18n_sevs[0]) <= LS_I18N_MAX_SEVS,\n")
    w('               "raise LS_I18N_MAX_SEVS (ls_i18n.h)");\n\n')
    w("const ls_i18n_msg ls_i18n_msgs[] = {\n")
    for li, (_, _, _, _, msgs) in enumerate(langs):
        for pat, en in msgs:
            w("    {%d, %s,\n     %s},\n" % (li, c_str(pat), c_str(en)))
    w("};\nconst int ls_i18n_nmsgs = %d;\n" % first)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "extract":
        extract(sys.argv[2])
    elif len(sys.argv) == 1:
        write_c(build(load_catalogs()))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
