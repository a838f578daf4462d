#!/usr/bin/env python3
"""PostgreSQL 18 samples (samples/pg18, made by samples/pg18.sh: a real 18.6
server in a Debian sid chroot, log_lock_failures = on, log_connections =
'all') in English (C), German (de) and Chinese (zh_CN, the 2019 catalog
postgresql-18 ships, which lockspan's message tables do not know), each in
stderr, csvlog and jsonlog. For every language and format:
- the waits (waiter, blocker, lock target kind, outcome), the deadlock's
  edges and the errors by class equal the English control's of the same
  format and the client-side truth (pids mapped to the truth's sessions);
- 18's lock-failure line gives the NOWAIT failure its holder: a failed wait
  blocked by the session holding the row, and (where the log has the
  statements that make transactions: C and de) the error's cause;
- no line is unparsable and the exit status is 0;
- 18's zh_CN and de (its lock-failure message is in no table): what was
  read by structure is counted on stderr ("read by structure: N lines")
  and in the report's input section; the lock-wait messages no table
  matched are warned about on stderr and in the report, naming the
  language problem and lc_messages = 'C', never the log_line_prefix; C
  (and every language of 17) has no such warning and reads nothing by
  structure;
- a log cut in mid-record that fails --max-bad-lines is not blamed on the
  log_line_prefix its lines match.

The same checks run on samples/pg17 (PostgreSQL 17.12 in a Debian trixie
chroot, samples/pg18.sh with LOCKSPAN_PGMAJOR=17), which has no
log_lock_failures: there the NOWAIT failure has no wait, and its zh_CN
catalog is a newer one; samples/pg17 also has es, fr, it, ja, ka, ko, ru,
sv, uk, zh_TW, tr, id, pl and pt_BR, samples/pg18 the same but zh_TW (18
ships no such catalog). Every language directory of the set is checked.

Usage: check_pg18.py LOCKSPAN SAMPLES_DIR (samples/pg18 or samples/pg17)
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

from lscheck import check, report

LANGS = ("C", "de", "zh_CN")
# The other languages of samples/pg17 (issue 35's table: 17 had C, de and
# zh_CN only): every catalog postgresql-17 ships but id, pl, pt_BR, tr.
PG17_MORE = ("es", "fr", "it", "ja", "ka", "ko", "ru", "sv", "uk", "zh_TW", "tr", "id", "pl",
             "pt_BR")
# The same of samples/pg18 (18 had C, de and zh_CN only): postgresql-18 ships
# no zh_TW catalog. (tr's DETAIL, CONTEXT, HINT and QUERY labels have no
# space after the colon: "AYRINTI:Process holding the lock...".)
PG18_MORE = tuple(lang for lang in PG17_MORE if lang != "zh_TW")


def languages(samples):
    """C first, then every other language directory of `samples`."""
    return ["C"] + sorted(d for d in os.listdir(samples) if d != "C" and
                          os.path.isfile(os.path.join(samples, d, "truth.json")))
FORMATS = ("log", "csv", "json")
ERROR_CLASSES = {"55P03": ("lock_nowait", "lock_timeout"), "40P01": ("deadlock",),
                 "57014": ("statement_timeout",), "40001": ("serialization_failure",)}


# Sample languages whose server catalog no message table holds: the real
# zh_CN run with its lock-wait wording replaced by one no catalog revision
# has (REWORDED), as a future retranslation would write it, so that the
# structural reading and its warnings are checked end to end.
READ_BY_STRUCTURE = {"zh_CN-reworded"}
REWORDED = (("仍然等待在", "依旧等候在"), ("后获取在", "后取得在"))


def reworded(samples, tmp):
    """samples/pg18/zh_CN with REWORDED applied to every format, in tmp;
    None when the release's catalog has other words (17's 2026 zh_CN)."""
    src, dst = os.path.join(samples, "zh_CN"), os.path.join(tmp, "zh_CN-reworded")
    os.makedirs(dst, exist_ok=True)
    for name in ("truth.json", "version.txt"):
        with open(os.path.join(src, name), "rb") as a, open(os.path.join(dst, name), "wb") as b:
            b.write(a.read())
    for fmt in FORMATS:
        with gzip.open(os.path.join(src, f"postgresql.{fmt}.gz"), "rt", encoding="utf-8") as f:
            text = f.read()
        if not all(old in text for old, _ in REWORDED):
            return None
        for old, new in REWORDED:
            text = text.replace(old, new)
        with gzip.open(os.path.join(dst, f"postgresql.{fmt}.gz"), "wt", encoding="utf-8") as f:
            f.write(text)
    return dst


def roles(truth):
    """pid -> "step.a" / "step.b": the same name in every run."""
    out = {}
    for step, ab in truth["sessions"].items():
        out[ab["a"]] = step + ".a"
        out[ab["b"]] = step + ".b"
    return out


def expected(truth, lock_failures):
    r = roles(truth)
    waits = [(r[w["pid"]], r[w["blocker"]], w["kind"], w["outcome"]) for w in truth["waits"]]
    nw = truth["nowait"]
    if lock_failures:  # 18's log_lock_failures logs the NOWAIT's holder
        waits.append((r[nw["pid"]], r[nw["holder"]], "transaction", "failed"))
    edges = sorted((r[a], r[b]) for a, b in truth["deadlock_edges"])
    errors = sorted((r[e["pid"]], e["sqlstate"]) for e in truth["errors"])
    return sorted(waits), edges, errors


def facts(rep, truth):
    r = roles(truth)
    name = lambda pid: r.get(pid, pid)
    waits = sorted((name(w["pid"]), name(w.get("blocker_pid")), w["target_kind"], w["outcome"])
                   for w in rep["waits"])
    edges = sorted((name(e["waiter_pid"]), name(e["blocker_pid"]))
                   for d in rep["deadlocks"] for e in d["edges"])
    errors = sorted((name(e["pid"]), e["sqlstate"], e["class"]) for e in rep["errors"]
                    if e["class"] != "other")
    return waits, edges, errors


def analyze(lockspan, path, fmt, out):
    env = dict(os.environ, TZ="UTC")
    p = subprocess.run([lockspan, "analyze", "--format", fmt, "-o", out, path],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def main():
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="lockspan-pg18-") as tmp:
        return check_samples(lockspan, samples, tmp)


def check_samples(lockspan, samples, tmp):
    control = {}
    langs = languages(samples)
    major0 = int(open(os.path.join(samples, "C", "version.txt")).read().split()[2].split(".")[0])
    want = set(LANGS) | set(PG17_MORE if major0 == 17 else PG18_MORE)
    check(want <= set(langs), f"languages of {samples}: {sorted(want - set(langs))} missing")
    dirs = [(lang, os.path.join(samples, lang)) for lang in langs]
    if reworded(samples, tmp):
        dirs.append(("zh_CN-reworded", os.path.join(tmp, "zh_CN-reworded")))
    for lang, d in dirs:
        truth = json.load(open(os.path.join(d, "truth.json")))
        major = int(open(os.path.join(d, "version.txt")).read().split()[2].split(".")[0])
        want_waits, want_edges, want_errors = expected(truth, major >= 18)
        r = roles(truth)
        for fmt in FORMATS:
            what = f"{lang}/{fmt}"
            out = os.path.join(tmp, f"{lang}.{fmt}.json")
            rc, err = analyze(lockspan, os.path.join(d, f"postgresql.{fmt}.gz"), "json", out)
            check(rc == 0, f"{what}: exit {rc}: {err}")
            if rc != 0:
                continue
            rep = json.load(open(out))
            s = rep["summary"]
            got = facts(rep, truth)
            waits, edges, errors = got
            check(waits == want_waits, f"{what}: waits {waits} != truth {want_waits}")
            check(edges == want_edges, f"{what}: deadlock edges {edges} != truth {want_edges}")
            check(sorted((p, st) for p, st, _ in errors) == want_errors,
                  f"{what}: errors {errors} != truth {want_errors}")
            check(all(c in ERROR_CLASSES[st] for _, st, c in errors),
                  f"{what}: error classes {errors}")
            if lang == "C":
                control[fmt] = got
            else:
                check(got == control[fmt], f"{what}: {got} != C's {control[fmt]}")
            check(s["bad_lines"] == 0, f"{what}: {s['bad_lines']} unparsable lines")
            check("log_line_prefix" not in err or "inferred log_line_prefix" in err
                  and "right?" not in err, f"{what}: stderr blames the prefix: {err}")
            # The NOWAIT failure's holder: the error's cause (the log's
            # statements make transactions, in every language now that the
            # 2019 zh_CN catalog's duration lines are in the table).
            nw = [e for e in rep["errors"] if e["class"] == "lock_nowait"]
            if major >= 18:
                check(len(nw) == 1 and nw[0]["cause_pid"] == truth["nowait"]["holder"],
                      f"{what}: NOWAIT error's cause {nw}")
            structural = s.get("structural_lines")
            unmatched = s.get("unmatched_lock_messages")
            # Since the table is built from every catalog revision Debian ships
            # (tools/catalogs.txt), 18's zh_CN (2019) catalog and its German
            # lock-failure message are in it: no sample language is read by
            # structure any more. The structural reading and its warnings are
            # unit-tested (test_classify, test_stderr) with wordings no catalog
            # has; a language listed here would be checked for them end to end.
            if lang in READ_BY_STRUCTURE:
                check(structural and structural > 0, f"{what}: read by structure {structural}")
                check(f"read by structure: {structural} line" in err,
                      f"{what}: stderr does not say read by structure: {err}")
                check(unmatched and unmatched["count"] > 0 and unmatched["unread"] == 0,
                      f"{what}: report's unmatched lock messages {unmatched}")
                check("lock-wait message" in err and "lc_messages = 'C'" in err
                      and "catalog" in err, f"{what}: no language warning on stderr: {err}")
                md = os.path.join(tmp, f"{lang}.{fmt}.md")
                rc, _ = analyze(lockspan, os.path.join(d, f"postgresql.{fmt}.gz"), "md", md)
                text = open(md, encoding="utf-8").read() if rc == 0 else ""
                check(f"read by structure: {structural} lines" in text,
                      f"{what}: Markdown input section lacks the structural count")
                check("**Warning:**" in text and "lc_messages = 'C'" in text
                      and "catalog" in text, f"{what}: Markdown report has no language warning")
                html = os.path.join(tmp, f"{lang}.{fmt}.html")
                rc, _ = analyze(lockspan, os.path.join(d, f"postgresql.{fmt}.gz"), "html", html)
                text = open(html, encoding="utf-8").read() if rc == 0 else ""
                check("read by structure: " in text and "lc_messages = 'C'" in text,
                      f"{what}: HTML report has no structural count or warning")
            else:
                check(unmatched is None, f"{what}: a warning about unmatched lock messages: "
                      f"{unmatched}")
                check(structural == 0, f"{what}: read by structure {structural}")
                check("warning" not in err, f"{what}: a warning on stderr: {err}")
    cut_log(lockspan, samples, tmp)
    return report()


def cut_log(lockspan, samples, tmp):
    """The zh_CN stderr log from its line 34 on, as a rotated file may start
    in mid-record (lines 32-35 are a wait's message, DETAIL, CONTEXT and
    STATEMENT lines): with --max-bad-lines 0 the two orphan lines fail the
    run (exit 3), and stderr does not blame the log_line_prefix, which they
    match."""
    d = os.path.join(samples, "zh_CN")
    with gzip.open(os.path.join(d, "postgresql.log.gz"), "rb") as f:
        lines = f.read().split(b"\n")
    path = os.path.join(tmp, "cut.log")
    with open(path, "wb") as f:
        f.write(b"\n".join(lines[33:]))
    prefix = open(os.path.join(d, "prefix.txt")).read().rstrip("\n")
    p = subprocess.run([lockspan, "analyze", "--prefix", prefix, "--max-bad-lines", "0",
                        "-o", os.path.join(tmp, "cut.md"), path],
                       capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
    check(p.returncode == 3, f"cut log: exit {p.returncode}: {p.stderr}")
    check("could not be parsed" in p.stderr and "right?" not in p.stderr
          and "cut in mid-record" in p.stderr, f"cut log: diagnosis: {p.stderr}")


if __name__ == "__main__":
    sys.exit(main())
